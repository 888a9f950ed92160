package extract

import "testing"

// TestChannelOf: the channel of real URL forms of the portals (URLs of the
// kinds crawlers and feed projects list: www.163.com/dy/article/….html,
// k.sina.com.cn/article_…, news.sina.com.cn/c/…/doc-….shtml,
// www.sohu.com/a/…, new.qq.com/rain/a/…) and of the platforms' statements.
func TestChannelOf(t *testing.T) {
	const statement = "平台声明：该文观点仅代表作者本人，搜狐号系信息发布平台，搜狐仅提供信息存储空间服务。"
	for _, tc := range []struct {
		name, url string
		lines     []string
		want      string
	}{
		{"网易号", "https://www.163.com/dy/article/J8UBOT180529AQIE.html", nil, ChannelSelfMedia},
		{"网易号 mobile", "https://m.163.com/dy/article/L55RDV9Q0514R9P4.html", nil, ChannelSelfMedia},
		{"NetEase newsroom", "https://www.163.com/news/article/J8UC1M4K000189FH.html", nil, ChannelNewsroom},
		{"NetEase money", "https://www.163.com/money/article/J8UD2N5L00259DLP.html", nil, ChannelNewsroom},
		{"新浪看点", "https://k.sina.com.cn/article_6105713761_16bedcc6102001otd2.html", nil, ChannelSelfMedia},
		{"Sina newsroom", "https://news.sina.com.cn/c/2024-07-08/doc-inccqwre1234567.shtml", nil, ChannelNewsroom},
		{"Sina finance", "https://finance.sina.com.cn/stock/2024-07-08/doc-inccqwre7654321.shtml", nil, ChannelNewsroom},
		{"公众号", "https://mp.weixin.qq.com/s?__biz=MzA3NjY0NTQ0MQ==&mid=2650012345", nil, ChannelSelfMedia},
		{"百家号", "https://baijiahao.baidu.com/s?id=1803456789012345678", nil, ChannelSelfMedia},
		{"头条号", "https://www.toutiao.com/article/7389012345678901234/", nil, ChannelSelfMedia},
		{"搜狐号 by its statement", "https://www.sohu.com/a/790123456_120012345", []string{"正文", statement}, ChannelSelfMedia},
		{"Sohu page without it", "https://www.sohu.com/a/790123456_120012345", []string{"正文"}, ChannelUnknown},
		{"statement quoted in prose is not one", "https://www.sohu.com/a/790123456_120012345",
			[]string{"有网友在评论区写道：" + statement + "这句话几乎出现在每一篇文章的末尾，很多读者并不知道它是什么意思，也不知道平台和作者之间的责任如何划分。"}, ChannelUnknown},
		{"企鹅号", "https://new.qq.com/rain/a/20241005A04DG600", []string{"本文来自企鹅号 - 某某观察"}, ChannelSelfMedia},
		{"QQ without a mark", "https://new.qq.com/rain/a/20241005A04DG600", []string{"正文"}, ChannelUnknown},
		{"People's Daily", "http://politics.people.com.cn/n1/2024/0520/c1001-40001234.html", nil, ChannelNewsroom},
		{"Xinhua", "http://www.news.cn/politics/20240520/3a9e1bc04d/c.html", nil, ChannelNewsroom},
		{"look-alike host", "https://notpeople.com.cn.example.org/a.html", nil, ChannelUnknown},
		{"a blog", "http://blog.example.com/2012/0615/post.html", nil, ChannelUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := channelOf(tc.url, tc.lines); got != tc.want {
				t.Errorf("channelOf(%s) = %s, want %s", tc.url, got, tc.want)
			}
		})
	}
}
