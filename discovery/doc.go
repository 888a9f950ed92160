// Package discovery turns the list surfaces of news sites into article
// links: sitemaps and sitemap indexes, RSS/Atom/JSON feeds, JSON and JSONP
// list APIs, URLs inside inline scripts, and the Sitemap lines of
// robots.txt. It is bytes in, links out: no network, no logging, no store.
// The crawler fetches the surfaces and filters the links with each site's
// article_url and allowed_domains.
//
// Formats and where their rules come from:
//
//   - Sitemaps follow the sitemaps.org protocol (urlset and sitemapindex,
//     XML or plain text, optionally gzipped; at most 50,000 URLs and
//     50 MB = 52,428,800 bytes uncompressed per file), with the Google News
//     extension (news:publication_date, news:title) and lastmod as times.
//     A file over the URL limit keeps its first MaxURLs entries and says
//     Truncated; one over the byte limit, or a gzip stream that inflates
//     past it, is ErrTooLarge.
//   - Feeds are RSS 0.9-2.0 (RSS 2.0 specification, rssboard.org), Atom
//     (RFC 4287) and JSON Feed 1.1 (jsonfeed.org), parsed with gofeed after
//     this package has decoded them to UTF-8 itself: the charset named by
//     the Content-Type, the XML prolog, or neither is checked against the
//     bytes, so a GBK feed declared only in its prolog and a feed declaring
//     one charset while sending another both come out right or as an error,
//     never as mojibake.
//   - List APIs are the portals' JSON and JSONP endpoints as maintained
//     feed projects (RSSHub) and news crawlers call them: Sina's roll API
//     (feed.mix.sina.com.cn/api/roll/get, result.data[].url, ctime in unix
//     seconds, wrapped as try{feedCardJsonpCallback(...);}catch(e){};),
//     NetEase's cm_ lists (data_callback([...]) with trailing commas and
//     "MM/DD/YYYY hh:mm:ss" times), QQ's getPCList (data[].id, the article
//     at news.qq.com/rain/a/{id}) and Sohu's odin blockdata
//     (data.<block key>.list[].url, relative "/a/<id>_<author>" paths).
//     Unwrap strips the wrappers; the nesting depth is measured before any
//     decoding so a nesting bomb is ErrTooDeep, and an HTML error page or a
//     captcha answered instead of JSON is ErrNotJSON.
//   - Script links are the absolute URLs inside inline <script> elements
//     and JSON state, JSON-escaped (https:\/\/..., \u002F) or not.
//   - robots.txt Sitemap lines are read as Google reads them: the key is
//     case-insensitive, valid in any group, and a whole or partial UTF-8
//     byte order mark before the first line is skipped.
package discovery
