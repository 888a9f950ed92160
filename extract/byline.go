package extract

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Patterns of metadata written as text: source (来源), editor (责任编辑),
// author (作者, 记者, 文/, end-of-article "（记者 张三）").
var (
	rxSource = regexp.MustCompile(`(?:来源|稿源|出处)\s*[:：]\s*[\[【(（]?\s*([^\s|｜/,，;；:：)）\]】\[【]{1,30})`)
	rxEditor = regexp.MustCompile(`(?:责任编辑|责编|编辑)\s*[:：]\s*([^\s|｜,，;；:：)）\]】(（\[【]{1,20})`)
	// rxAuthorField: "作者：张三 李四", "文/张三", "执笔人：…", "撰文：…".
	rxAuthorField = regexp.MustCompile(`(?:作者|撰文|执笔人?|文)\s*[:：/]\s*([^\s|｜,，;；:：)）\]】(（\[【]{1,24}(?:\s+\([^)]{1,30}\))?(?:[ 　]+[\p{Han}·]{1,4}){0,5})`)
	// rxReporter: "本报记者 张三 李四", "新京报记者 彭冲 山东冠县报道",
	// "本报记者罗科苏盈发自北京", "记者：张三"; the names are cut out of the
	// captured run by bylineNames.
	rxReporter = regexp.MustCompile(`(?:记者|通讯员|实习生)\s*[:：]?\s*([\p{Han}·][\p{Han}· 　、]{1,40})`)
	// rxTailByline: "（常书香 马丹阳 ）", "（姚峰 上海报道）", "(信报记者 蔡雪婧)" closing the text.
	rxTailByline = regexp.MustCompile(`[（(]\s*(?:[\p{Han}]{0,8}记者\s*)?((?:[\p{Han}·]{2,4})(?:[ 　、]+[\p{Han}·]{2,4}){0,4})\s*(?:[\p{Han}]{2,6}报道)?\s*[)）]$`)
	rxByEnglish  = regexp.MustCompile(`^(?:By|BY|by)\s+([A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+){0,3})`)
	// rxPostedBy: a forum or blog post's "ggjjzhzz 发表于 2005-9-15 11:46".
	rxPostedBy = regexp.MustCompile(`^([\p{Han}\w.·-]{2,20})\s+发表于\s*(?:19|20)\d\d`)
	// rxIssuer: 发文机关 is the author of an official document (公文的作者
	// in Chinese records management) on government information pages; it
	// names an organ, not a person.
	rxIssuer = regexp.MustCompile(`发文机关\s*[:：]\s*(\p{Han}{2,30})(?:\s|$)`)
	// rxLabelOnly: an author label alone on its line, its value on the next.
	rxLabelOnly = regexp.MustCompile(`^(?:作者|发文机关)\s*[:：]\s*$`)
	// rxPostedByBlog: a blog's "由海姑娘张贴 @ 2005-06-10 05:42:56".
	rxPostedByBlog = regexp.MustCompile(`^由\s*([\p{Han}\w.·-]{2,20}?)\s*(?:张贴|发表|发布)\s*(?:@|于)?\s*(?:19|20)\d\d`)
	// rxByAfterTime: a forum footer's "发布时间 2005/03/15 22:36:13 by duscha".
	rxByAfterTime = regexp.MustCompile(`(?:19|20)\d\d\S*\s+\d{1,2}:\d\d(?::\d\d)?\s+(?:by|BY|By)\s+([\w.-]{2,30})`)
	// rxBracketName: "[ 黄宇 ] 来源：[ 国际金融报 ]", the name before the
	// source in a portal's header.
	rxBracketName = regexp.MustCompile(`[\[【]\s*([\p{Han}·]{2,4}(?:\s+[\p{Han}·]{2,4}){0,3})\s*[\]】][^\p{Han}\w]{0,3}\s*(?:来源|出处)\s*[:：]`)
)

// nameStopWords end a run of names in a byline ("赵婕 出自…",
// "彭冲 山东冠县报道", "罗科苏盈发自北京").
var nameStopWords = []string{"发自", "报道", "摄影", "出自", "来源", "发表", "时间", "阅读", "编辑", "整理", "日期", "访问", "通讯员", "记者", "摄"}

// bylineNames splits a captured byline run into person names: tokens of
// 2-4 Han characters (or one Latin token), stopping at a stop word; a token
// glued to 报道/发自 is a place and is dropped.
func bylineNames(s string) string {
	s = strings.ReplaceAll(s, "、", " ")
	var names []string
	for _, tok := range strings.Fields(s) {
		if isRoleToken(tok) {
			// "本报实习生 刘国栋 周炜 本报记者 王燕平": the next names.
			continue
		}
		stop := false
		for _, w := range nameStopWords {
			if i := strings.Index(tok, w); i >= 0 {
				if i > 0 && w != "报道" {
					tok = tok[:i]
				} else {
					tok = ""
				}
				stop = true
				break
			}
		}
		if isProseVerb(tok) {
			// "记者多番打听", "记者获悉": prose, not a byline.
			break
		}
		if n := runeLen(tok); n >= 2 && n <= 4 && isHanName(tok) {
			names = append(names, tok)
		} else if tok != "" && !stop {
			break
		}
		if stop {
			break
		}
	}
	return strings.Join(names, " ")
}

// proseVerbs follow 记者 in prose ("记者获悉", "记者多番打听"); a byline
// run starting with one is not a name.
var proseVerbs = []string{"的", "获悉", "证实", "透露", "据说", "打听", "了解", "发现", "注意到", "看到", "采访", "询问", "致电", "走访", "调查", "观察", "得知", "联系", "查询", "暗访", "探访", "问", "从", "在", "向", "对", "昨", "今", "日前", "近日", "多方", "多番", "随机", "实地", "现场", "电话"}

func isProseVerb(tok string) bool {
	for _, v := range proseVerbs {
		if strings.HasPrefix(tok, v) {
			return true
		}
	}
	return false
}

// roleWords end a token that names a role, not a person.
var roleWords = []string{"记者", "通讯员", "实习生", "特约记者", "见习记者", "摄影"}

func isRoleToken(tok string) bool {
	for _, w := range roleWords {
		if strings.HasSuffix(tok, w) && runeLen(tok) <= runeLen(w)+maxBylinePrefix {
			return true
		}
	}
	return false
}

func isHanName(s string) bool {
	for _, r := range s {
		if !isCJK(r) && r != '·' {
			return false
		}
	}
	return true
}

func cleanName(s string) string {
	s = strings.TrimSpace(s)
	for _, w := range nameStopWords {
		if i := strings.Index(s, w); i > 0 {
			s = s[:i]
		}
	}
	fs := strings.Fields(strings.ReplaceAll(s, "、", " "))
	out := fs[:0]
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if runeLen(f) == 1 && isHanName(f) {
			// "赵 培": a surname spaced from its given name is one
			// name; any other lone character is not a name.
			if i+1 < len(fs) && runeLen(fs[i+1]) <= 2 && isHanName(fs[i+1]) {
				out = append(out, f+fs[i+1])
				i++
			}
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// lineInfo locates the headline and the body inside the page's lines.
type lineInfo struct {
	page      []string
	foreign   []bool // page lines inside related, comment or footer regions
	body      []string
	titleLine int // index of the headline line in page, or -1
	bodyLine  int // index of the first body line in page, or -1
	// urlDay is the date in the page URL (zero when none); yearHint is
	// the meta or URL date whose year completes year-less dates.
	urlDay, yearHint time.Time
}

// near returns up to n page lines from index from, without the lines of
// foreign regions.
func (li lineInfo) near(from, n int) []string {
	if from < 0 {
		return nil
	}
	to := min(len(li.page), from+n)
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		if !li.isForeign(i) {
			out = append(out, li.page[i])
		}
	}
	return out
}

func (li lineInfo) isForeign(i int) bool { return i < len(li.foreign) && li.foreign[i] }

// findMeta fills Source, Editor and Author from the body lines and the
// lines around the headline.
func findMeta(li lineInfo, art *Article, metaAuthor string) {
	header := li.header()
	body := li.body
	// The byline is looked for at the article's start (its first lines,
	// then the lines from the headline), then at its end (its last lines,
	// then the lines just after it): a reposted story keeps its reporters
	// under the headline while the blog that reposts it adds
	// "作者：poster" at the end.
	head := firstN(body, headBodyLines)
	tail := lastN(body, max(0, min(3, len(body)-len(head))))
	// The 来源/责任编辑 lines of the article's own header and footer
	// (a "责任编辑：某某" closing the article outside its text block).
	for _, group := range [][]string{body, header, li.footer()} {
		for _, l := range group {
			if runeLen(l) > maxMetaLineRunes {
				continue
			}
			if art.Source == "" {
				if m := rxSource.FindStringSubmatch(l); m != nil {
					art.Source = strings.TrimRight(m[1], ")）]】")
				}
			}
			if art.Editor == "" {
				if m := rxEditor.FindStringSubmatch(l); m != nil {
					art.Editor = strings.TrimRight(m[1], ")）]】")
				}
			}
		}
	}
	// Each place is asked in turn; a UI or role word in a name's place
	// ("编辑", the edit link under a wiki's section heading) is no name.
	found := func(a string) bool {
		if notNames[a] {
			return false
		}
		art.Author = a
		return a != ""
	}
	places := []func() string{
		func() string { return bylineIn(head) },
		func() string { return bylineIn(header) },
		func() string { return bylineIn(tail) },
		func() string { return bylineIn(li.footer()) },
		func() string { return tailByline(body) },
		func() string { return nameUnderHeadline(li) },
		func() string { return nameUnderBodyHeadline(body) },
		func() string { return issuer(li) },
		func() string {
			if looksLikePerson(metaAuthor) {
				return metaAuthor
			}
			return ""
		},
	}
	for _, place := range places {
		if found(place()) {
			break
		}
	}
	// A self-media account or an organisation in the author field is the
	// source ("作者：某某财经" on a portal's self-media channel).
	if art.Author != "" && isAccountName(art.Author) {
		if art.Source == "" {
			art.Source = art.Author
		}
		art.Author = ""
	}
}

// ownerAuthor returns the author of a personal site's page that names
// none in its header or footer: the blog owner its links name
// (pageMeta.linkAuthor), else the person the site's first lines and its
// copyright line both name ("李建忠" … "Copyright © 李建忠"). An account
// or organisation is no owner.
func ownerAuthor(li lineInfo, m pageMeta) string {
	name := m.linkAuthor()
	if name == "" {
		name = siteOwner(li.page)
	}
	if name == "" || isAccountName(name) || notNames[name] {
		return ""
	}
	return name
}

// rxCopyrightName is a copyright line naming a person: "Copyright © 李建忠",
// "© 2005 王五".
var rxCopyrightName = regexp.MustCompile(`(?i)^(?:copyright\s*)?(?:©|\(c\))\s*(?:(?:19|20)\d\d(?:\s*-\s*(?:19|20)\d\d)?\s*)?(\p{Han}{2,4})$`)

// siteLines is how many first and last page lines hold a site's name
// and its copyright line.
const siteLines = 5

// siteOwner returns the person both the first lines and the copyright
// line of a page name, or "".
func siteOwner(page []string) string {
	for _, l := range lastN(page, siteLines) {
		m := rxCopyrightName.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || !isHanName(m[1]) {
			continue
		}
		for _, h := range firstN(page, siteLines) {
			if strings.TrimSpace(h) == m[1] {
				return m[1]
			}
		}
	}
	return ""
}

// header returns the page lines of the article's header: headerLines
// lines from the headline, or, when the headline is not found, the
// headerLines/2 lines before the body, nearest first; foreign regions
// excluded.
func (li lineInfo) header() []string {
	switch {
	case li.titleLine >= 0:
		return li.near(li.titleLine, headerLines)
	case li.bodyLine > 0:
		// Closest to the body first.
		from := max(0, li.bodyLine-headerLines/2)
		h := li.near(from, li.bodyLine-from)
		slices.Reverse(h)
		return h
	}
	return nil
}

// footerLines is how many page lines after the body are the article's
// own footer (a byline closing the article outside its text block).
const footerLines = 3

// footer returns the page lines just after the body, foreign regions
// excluded.
func (li lineInfo) footer() []string {
	end := bodyEnd(li.page, li.body, li.bodyLine)
	if end < 0 {
		return nil
	}
	return li.near(end+1, footerLines)
}

// bodyEnd returns the index of the page line holding the last body line,
// located through one of the last body lines long enough to be unique;
// -1 when not found. The first occurrence from the body's start (from,
// when known) is taken: a reply further down that quotes the article's
// last line is not its end.
func bodyEnd(page, body []string, from int) int {
	const uniqueRunes = 15
	for k := len(body) - 1; k >= 0 && k >= len(body)-5; k-- {
		if runeLen(body[k]) < uniqueRunes {
			continue
		}
		for i := max(0, from); i < len(page); i++ {
			if page[i] == body[k] {
				return min(len(page)-1, i+len(body)-1-k)
			}
		}
	}
	return -1
}

// nameUnderHeadline returns a lone personal name on the first line under
// the headline ("我是怎样卷入八九民运的 / 茉莉"), the byline of magazine
// and essay pages; "" otherwise.
func nameUnderHeadline(li lineInfo) string {
	if li.titleLine < 0 || li.titleLine+1 >= len(li.page) || li.isForeign(li.titleLine+1) || li.bodyLine >= 0 && li.bodyLine <= li.titleLine+1 {
		// (A line under the headline that starts the body is not a byline.)
		return ""
	}
	l := strings.TrimSpace(li.page[li.titleLine+1])
	if n := runeLen(l); n < 2 || n > 4 || !isHanName(l) || notNames[l] || rxBoilerLine.MatchString(l) || rxUILine.MatchString(l) || isFurnitureLine(l) {
		return ""
	}
	return l
}

// issuer returns the 发文机关 of a government information page, labelled
// in the document's metadata table (often above the headline, the label
// and its value in two cells); "" when the page has none.
func issuer(li lineInfo) string {
	for i, l := range li.page {
		if li.isForeign(i) || !strings.Contains(l, "发文机关") || runeLen(l) > maxMetaLineRunes {
			continue
		}
		if rxLabelOnly.MatchString(l) && i+1 < len(li.page) {
			l += li.page[i+1]
		}
		if m := rxIssuer.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// tailByline returns the names of a "（记者 胡晓蓉）" closing the text: on
// its last line, or on the last line before the 责任编辑/来源 lines that
// follow it.
func tailByline(body []string) string {
	for k := len(body) - 1; k >= 0 && k >= len(body)-3; k-- {
		// (Trailing no-break spaces of the HTML would hide the closing
		// bracket from the anchored pattern.)
		l := strings.TrimSpace(body[k])
		if m := rxTailByline.FindStringSubmatchIndex(l); m != nil {
			// Above the meta lines, the bracket must close a sentence or
			// name a reporter: "…加西亚(肥仔)" is a nickname in prose.
			prev, _ := utf8.DecodeLastRuneInString(l[:m[0]])
			if k == len(body)-1 || m[0] == 0 || strings.ContainsRune("。！？!?”\"", prev) || strings.Contains(l[m[0]:], "记者") {
				return bylineNames(l[m[2]:m[3]])
			}
		}
		if !rxMetaLine.MatchString(l) {
			break
		}
	}
	return ""
}

// bylineIn returns the byline of the first line of group that holds one;
// reporter lines that follow it directly ("本报实习生 刘国栋 周炜" /
// "本报记者 王燕平 方云凤") add their names.
func bylineIn(group []string) string {
	for i, l := range group {
		a := authorFromLine(l)
		if a == "" && i+1 < len(group) && rxLabelOnly.MatchString(l) {
			// "发文机关：" and its value in two table cells.
			a = authorFromLine(l + group[i+1])
		}
		if a == "" {
			continue
		}
		for _, next := range group[i+1:] {
			if !rxReporter.MatchString(next) {
				break
			}
			more := authorFromLine(next)
			if more == "" {
				break
			}
			a += " " + more
		}
		return a
	}
	return ""
}

// maxHeadlineRunes bounds a line taken for a headline by
// nameUnderBodyHeadline.
const maxHeadlineRunes = 40

// nameUnderBodyHeadline returns the names on one of the first body lines
// when the line before it is a headline ("路是人走出来的(下)" / "胡平",
// "…的再就业" / "赵延东、风笑天"): pages whose <title> is the site's name,
// so the headline is found only as the body's first line. Each name has
// 2-4 Han characters; "" otherwise.
func nameUnderBodyHeadline(body []string) string {
	for k := 1; k < min(3, len(body)); k++ {
		prev := strings.TrimSpace(body[k-1])
		if n := runeLen(prev); n < 4 || n > maxHeadlineRunes || strings.ContainsAny(prev, "。，,；;：:！!") {
			continue
		}
		l := strings.TrimSpace(body[k])
		if runeLen(l) > 4*maxNamesUnder+maxNamesUnder || notNames[l] || rxBoilerLine.MatchString(l) || rxUILine.MatchString(l) || isFurnitureLine(l) {
			continue
		}
		names := strings.FieldsFunc(l, func(r rune) bool { return r == '、' || r == ' ' || r == '\u3000' })
		ok := len(names) > 0 && len(names) <= maxNamesUnder
		for _, n := range names {
			if c := runeLen(n); c < 2 || c > 4 || !isHanName(n) || notNames[n] {
				ok = false
			}
		}
		if ok {
			return strings.Join(names, " ")
		}
	}
	return ""
}

// maxNamesUnder is the most co-authors on a name line under a headline.
const maxNamesUnder = 3

// notNames are short lines under a headline that are not bylines.
var notNames = map[string]bool{"正文": true, "摘要": true, "简介": true, "导读": true, "编者按": true, "核心提示": true, "提要": true, "内容提要": true, "图片": true, "视频": true, "专题": true, "评论": true, "社论": true, "快讯": true, "独家": true, "原创": true, "转载": true,
	// Navigation links that can stand alone under a headline.
	"目录": true, "返目录": true, "回目录": true, "返回": true, "返回目录": true, "返回首页": true, "首页": true, "上一篇": true, "下一篇": true, "上一页": true, "下一页": true, "回顶部": true,
	// Role words and page controls standing where a name would.
	"编辑": true, "作者": true, "来源": true, "记者": true, "责任编辑": true, "投稿": true, "分享": true, "收藏": true, "举报": true,
	"打印": true, "关闭": true, "锁定": true, "讨论": true,
	// Photo captions under a headline (资料图片: a file photo), in
	// simplified and traditional characters.
	"资料图片": true, "資料圖片": true, "资料图": true, "資料圖": true, "圖片": true, "图片来源": true, "圖片來源": true}

// accountWords mark an author field as an organisation or a self-media
// account rather than a person.
var accountWords = []string{"网", "报", "社", "频道", "新闻", "财经", "传媒", "媒体", "公众号", "工作室", "观察", "官方", "号", "周刊", "杂志", "电视台", "电台", "研究院", "中心", "编辑部", "出版"}

func isAccountName(s string) bool {
	for _, w := range accountWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// headBodyLines is how many of the first body lines are searched for a
// byline before the lines around the headline.
const headBodyLines = 5

// headerLines is how many page lines from the headline are searched for
// the byline; maxMetaLineRunes bounds a metadata line (longer lines are
// prose that merely mentions 来源 or 编辑).
const (
	headerLines      = 15
	maxMetaLineRunes = 80
)

func authorFromLine(l string) string {
	// An account name (moved to the source by findMeta) may be long.
	if a := bylineCandidate(l); !strings.ContainsAny(a, "=\"<>{}[]@#%&*+") && (hanNamesOnly(a) || isAccountName(a)) {
		return a
	}
	return ""
}

// maxHanNameRunes: a run of more Han characters is prose glued to a name
// ("作者:陈伟飞技术和时尚的无缝结合…"), not a name; compound names keep
// their "·".
const maxHanNameRunes = 4

func hanNamesOnly(s string) bool {
	for _, f := range strings.Fields(s) {
		han := 0
		for _, r := range f {
			if isCJK(r) {
				han++
			}
		}
		if han > maxHanNameRunes && !strings.Contains(f, "·") {
			return false
		}
	}
	return true
}

// bylineCandidate is the author a metadata line names (an author field, a
// reporter mention, an English or blog byline), before authorFromLine
// checks that it is a name.
func bylineCandidate(l string) string {
	if runeLen(l) > maxMetaLineRunes {
		return ""
	}
	if m := rxAuthorField.FindStringSubmatchIndex(l); m != nil {
		name := l[m[2]:m[3]]
		if r, _ := utf8.DecodeRuneInString(l[m[3]:]); isCJK(r) {
			// The last "name" is the start of the prose that follows
			// ("作者：胡振伟 现在宣传最热的…"): drop it.
			if i := strings.LastIndexAny(name, " 　"); i > 0 {
				name = name[:i]
			} else {
				name = ""
			}
		}
		if n := cleanName(name); n != "" {
			return n
		}
	}
	if m := rxReporter.FindStringSubmatchIndex(l); m != nil && (runeLen(l[:m[0]]) <= maxBylinePrefix || runeLen(l) <= maxReporterLineRunes) {
		// A reporter mention deep inside a long line is prose
		// ("经过记者多番打听，…"), and so is a run that a comma ends
		// ("记者梳理发现，…").
		if r, _ := utf8.DecodeRuneInString(l[m[3]:]); r != '，' && r != '。' && r != ',' {
			if n := bylineNames(l[m[2]:m[3]]); n != "" {
				return n
			}
		}
	}
	if m := rxByEnglish.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	for _, rx := range []*regexp.Regexp{rxPostedBy, rxPostedByBlog, rxByAfterTime} {
		if m := rx.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	if m := rxBracketName.FindStringSubmatch(l); m != nil {
		return strings.Join(strings.Fields(m[1]), " ")
	}
	return ""
}

// maxReporterLineRunes: on a longer line the reporter word must open the
// line (after at most maxBylinePrefix runes of medium name).
const maxReporterLineRunes = 30

// looksLikePerson rejects <meta name=author> values that are site names.
func looksLikePerson(s string) bool {
	if runeLen(s) > 40 || strings.ContainsAny(s, "0123456789@") {
		return false
	}
	for _, w := range []string{"网", "新闻", "日报", "报社", "频道", "http", ".com", ".cn", "www", "Team", "Inc", "Powered", "Corporation", "Ltd"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
func lastN(s []string, n int) []string  { return s[max(0, len(s)-n):] }

// Date scoring: a page shows many dates (copyright years, related links,
// archive calendars). The publish date is near the headline, often with a
// time of day and a keyword such as 发布时间.
var (
	rxDateKeyword    = regexp.MustCompile(`(?i)发表|发布|时间|日期|更新|稿|published|posted|updated|date`)
	rxDateNegKeyword = regexp.MustCompile(`(?i)建立于|注册|成立|生日|出生|copyright|©|版权|截至|截止|引用日期|访问日期|accessed|retrieved`)
)

const (
	scoreTime       = 2  // a time of day was written
	scoreKeyword    = 3  // 发布时间 / 日期 / published ... on the line
	scoreNearTitle  = 5  // within headerLines after the headline or before the body
	scoreInBody     = -2 // a date inside the article prose
	scoreNegKeyword = -10
	scoreUSForm     = -1 // month/day/year, also used for ranges in archives
	scoreNoYear     = -1 // "10-08 12:00", its year taken from the meta or URL date
	scoreURLDay     = 3  // the day the page URL names
	// scoreTrusted: a text date scoring less (not near the headline, no
	// label next to it, not the URL's day) yields to the page's
	// modified-time meta when the page has no URL date.
	scoreTrusted = 1
)

// dateKeywordRunes is how far from a date, in characters, a keyword
// (发布时间, 版权, 引用日期) is read as its label: a short meta line is
// read whole, the keywords of a prose sentence around a date are not
// about that date.
const dateKeywordRunes = 12

// dateContext returns the text of l within dateKeywordRunes characters of
// the match at (byte offsets), the match included.
func dateContext(l string, at [2]int) string {
	from, to := at[0], at[1]
	for n := 0; n < dateKeywordRunes && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(l[:from])
		from -= size
	}
	for n := 0; n < dateKeywordRunes && to < len(l); n++ {
		_, size := utf8.DecodeRuneInString(l[to:])
		to += size
	}
	return l[from:to]
}

// submatches turns the index pairs of a FindAllStringSubmatchIndex match
// into its strings ("" for a group that did not take part).
func submatches(l string, ix []int) []string {
	m := make([]string, len(ix)/2)
	for i := range m {
		if ix[2*i] >= 0 {
			m[i] = l[ix[2*i]:ix[2*i+1]]
		}
	}
	return m
}

// textDate picks the publish date from the page lines.
func textDate(li lineInfo) (time.Time, bool) {
	t, _, ok := textDateScored(li)
	return t, ok
}

// textDateScored is textDate with the score of the date picked; a date
// that is not a scored candidate (the URL's day, a month date) scores
// scoreNegKeyword.
func textDateScored(li lineInfo) (time.Time, int, bool) {
	inBody := make(map[string]bool, len(li.body))
	for _, l := range li.body[min(2, len(li.body)):max(min(2, len(li.body)), len(li.body)-2)] {
		inBody[l] = true
	}
	best, bestScore, found := time.Time{}, 0, false
	for i, l := range li.page {
		if li.isForeign(i) || !strings.ContainsAny(l, "0123456789") {
			continue
		}
		for _, mm := range dateMatches(l, li.yearHint) {
			t, score, ok := li.scoreDate(i, l, mm, inBody[l])
			if ok && (!found || score > bestScore) {
				best, bestScore, found = t, score, true
			}
		}
	}
	// A weak text date (a date in prose, far from the headline) yields to
	// the URL's day.
	if found && bestScore > scoreNegKeyword/2 && (bestScore >= scoreTrusted || li.urlDay.IsZero()) {
		return best, bestScore, true
	}
	if !li.urlDay.IsZero() {
		return li.urlDay, scoreNegKeyword, true
	}
	// A month date such as "1998年3月号" when no full date exists.
	for g, group := range [][]string{li.body, li.page} {
		for i, l := range group {
			if g == 1 && li.isForeign(i) {
				continue
			}
			if m := rxYearMonth.FindStringSubmatch(l); m != nil {
				if t, _, ok := dateFromMatch([]string{m[0], m[1], m[2], "1", "", "", "", "", "", "", "", "", ""}); ok {
					return t, scoreNegKeyword, true
				}
			}
		}
	}
	return time.Time{}, 0, false
}

// dateMatch is one date written in a page line.
type dateMatch struct {
	m          []string
	at         [2]int // byte offsets of the match in the line
	us, noYear bool
}

// dateMatches returns the dates of line l: full dates, else US-order
// dates, else (with a year hint) year-less dates.
func dateMatches(l string, yearHint time.Time) []dateMatch {
	var ms []dateMatch
	add := func(rx *regexp.Regexp, n int, us, noYear bool) {
		for _, ix := range rx.FindAllStringSubmatchIndex(l, n) {
			ms = append(ms, dateMatch{m: submatches(l, ix), at: [2]int{ix[0], ix[1]}, us: us, noYear: noYear})
		}
	}
	add(rxDateTime, 4, false, false)
	if len(ms) == 0 {
		add(rxUSDate, 2, true, false)
	}
	if len(ms) == 0 && !yearHint.IsZero() {
		add(rxNoYearDate, 2, false, true)
	}
	return ms
}

// scoreDate validates and scores the date mm of page line i (text l);
// ok is false for an invalid date and for a date a negative keyword
// labels.
func (li lineInfo) scoreDate(i int, l string, mm dateMatch, inBody bool) (t time.Time, score int, ok bool) {
	var hasTime bool
	switch {
	case mm.us:
		t, hasTime, ok = usDateFromMatch(mm.m)
		score += scoreUSForm
	case mm.noYear:
		t, ok = noYearDate(mm.m, li.yearHint)
		hasTime = true
		score += scoreNoYear
	default:
		t, hasTime, ok = dateFromMatch(mm.m)
	}
	if !ok {
		return t, 0, false
	}
	if !li.urlDay.IsZero() && sameDay(t, li.urlDay) {
		score += scoreURLDay
	}
	if hasTime {
		score += scoreTime
	}
	// A keyword labels the date only next to it: "发布" in the article's
	// first sentence ("…签署命令，发布《规定》，自2022年2月10日起施行")
	// does not make that date the publish date.
	around := dateContext(l, mm.at)
	if rxDateNegKeyword.MatchString(around) {
		// A copyright year, a founding date, a reference's access date:
		// never the publish date.
		return t, 0, false
	}
	if rxDateKeyword.MatchString(around) {
		score += scoreKeyword
	}
	// A date inside a sentence of prose is an event's date even when the
	// sentence stands under the headline.
	prose := runeLen(l) > maxMetaLineRunes
	switch {
	case prose:
	case li.titleLine >= 0 && i >= li.titleLine && i < li.titleLine+headerLines:
		score += scoreNearTitle
	case li.bodyLine >= 0 && i <= li.bodyLine && i > li.bodyLine-headerLines:
		score += scoreNearTitle
	}
	if inBody {
		score += scoreInBody
	}
	return t, score, true
}

// withAccount applies the publishing account a page marks (pageMeta.
// account): it is the source when the page names none, and a byline that
// ran the author and the account together ("文：周小雨 南方周末", the two
// spans of a WeChat header read as one line) keeps the author alone.
func withAccount(art *Article, account string) {
	if account == "" {
		return
	}
	if art.Source == "" {
		art.Source = account
	}
	names := strings.Fields(art.Author)
	kept := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == account })
	if len(kept) < len(names) {
		art.Author = strings.Join(kept, " ")
	}
}
