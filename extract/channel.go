package extract

import (
	"net/url"
	"regexp"
	"strings"
)

// Channels. The portals publish two kinds of article under one host: their
// newsroom's (edited by the portal or reprinted from a licensed agency) and
// self-media (自媒体) posts of accounts on their platforms (网易号, 新浪看点,
// 搜狐号, 企鹅号, 微信公众号, 百家号, 头条号), which a corpus builder often
// wants apart. Channel says which one a page is, from what the portals
// themselves mark:
//   - the platform's URL space: NetEase /dy/article/ (网易号) against
//     /news/article/ and the other channels' /article/; Sina's
//     k.sina.com.cn/article_ (新浪看点) against the newsroom's doc-….shtml;
//     mp.weixin.qq.com/s, baijiahao.baidu.com/s, toutiao.com/article/ and
//     caifuhao.eastmoney.com/news/, which hold accounts' posts only;
//   - the platform's statement on the page: Sohu's /a/ pages carry
//     "搜狐号系信息发布平台" (a post of a 搜狐号), Tencent's "本文来自企鹅号";
//   - the hosts of the state news agencies and papers (people.com.cn,
//     xinhuanet.com, news.cn, chinanews.com.cn, gmw.cn, cctv.com, …), whose
//     pages are their newsrooms'.
//
// Anything else is ChannelUnknown: a guess would put posts in the
// newsroom's corpus.
const (
	ChannelNewsroom  = "newsroom"
	ChannelSelfMedia = "self_media"
	ChannelUnknown   = "unknown"
)

// Channels lists the channel values, for validating a filter.
var Channels = []string{ChannelNewsroom, ChannelSelfMedia, ChannelUnknown}

var (
	// rxSelfMediaURL matches the URL spaces of self-media platforms.
	rxSelfMediaURL = regexp.MustCompile(`^https?://(?:` +
		`(?:www\.|m\.|3g\.)?163\.com/dy/article/|` + // 网易号
		`k\.sina\.(?:com\.)?cn/article_|` + // 新浪看点
		`mp\.weixin\.qq\.com/s|` + // 微信公众号
		`baijiahao\.baidu\.com/s|` + // 百家号
		`(?:www\.|m\.)?toutiao\.com/(?:article|a\d|i\d)|` + // 头条号
		`caifuhao\.eastmoney\.com/news/)`) // 财富号
	// rxNewsroomURL matches newsroom URL spaces of the portals: NetEase's
	// channel articles other than /dy/, Sina's doc pages.
	rxNewsroomURL = regexp.MustCompile(`^https?://(?:` +
		`(?:www\.|news\.|m\.)?163\.com/(?:news|money|sports|ent|tech|war|auto|edu|travel|health|house|home|lady|fashion|digi|mobile|jiankang)/article/|` +
		`[a-z0-9.]*\.sina\.com\.cn/.*doc-[a-z0-9]+\.shtml)`)
	// rxPlatformStatement is a self-media platform's statement on a post.
	rxPlatformStatement = regexp.MustCompile(`搜狐号系信息发布平台|本文来自企鹅号|来源[:：]\s*企鹅号`)
)

// newsroomHosts are the hosts (and their subdomains) of the state news
// agencies and papers: every article page of theirs is their newsroom's.
var newsroomHosts = []string{"people.com.cn", "xinhuanet.com", "news.cn", "chinanews.com.cn", "chinanews.com",
	"gmw.cn", "cctv.com", "youth.cn", "ce.cn", "cnr.cn", "chinadaily.com.cn", "cri.cn", "china.com.cn"}

// maxStatementRunes bounds a line read as a platform's statement: a
// sentence in the article that mentions 搜狐号 is not one.
const maxStatementRunes = 60

// channelOf returns the channel of the article page at pageURL whose text
// lines are lines.
func channelOf(pageURL string, lines []string) string {
	switch {
	case rxSelfMediaURL.MatchString(pageURL):
		return ChannelSelfMedia
	case rxNewsroomURL.MatchString(pageURL):
		return ChannelNewsroom
	}
	for _, l := range lines {
		if runeLen(l) <= maxStatementRunes && rxPlatformStatement.MatchString(l) {
			return ChannelSelfMedia
		}
	}
	if u, err := url.Parse(pageURL); err == nil {
		h := strings.ToLower(u.Hostname())
		for _, n := range newsroomHosts {
			if h == n || strings.HasSuffix(h, "."+n) {
				return ChannelNewsroom
			}
		}
	}
	return ChannelUnknown
}
