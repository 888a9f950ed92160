// Package robots parses a robots.txt and matches request paths against the
// rules it gives one product token: RFC 9309 (the Robots Exclusion
// Protocol), with Google's reading of what the RFC leaves open
// (github.com/google/robotstxt, the reference parser; its test suite is
// ported as data in google_test.go). Fetching, caching and sharing a
// robots.txt, its size limit and encodings, and what a crawler does with a
// host's answer are the crawler's (crawler/robots.go).
//
// Matching (RFC 9309 section 2.2.2). Lines are parsed by github.com/jimsmart/grobotstxt, a port of Google's
// robots.txt parser: it accepts what Google accepts (partial BOMs, CR, LF
// and CRLF, a missing colon, typos such as "disalow", lines cut at 16,664
// bytes) and ignores every line it cannot parse. Its matcher re-parses the
// whole file for every URL and compares each path with each rule in
// O(len(path) x len(rule)), which is what made one 512 KB robots.txt of
// wildcard rules cost minutes of CPU per page; so the rules of our group are
// collected once per host and compiled here:
//
//   - every pattern and every path is put in one canonical form before
//     comparison: octets outside printable US-ASCII are percent-encoded,
//     percent-escapes of unreserved characters are decoded, the hex digits of
//     the other escapes are upper-cased;
//   - rules without '*' (the common case) sit in a byte trie: one walk along
//     the path finds every matching one, in time linear in the path;
//   - rules with '*' are indexed by their longest literal segment after a
//     '*', found in the path by one
//     Aho-Corasick pass (linear in the path plus matches); only the rules
//     whose segment occurs and whose length could change the verdict are
//     verified, by greedy leftmost segment search (linear in the path);
//   - the longest match wins (length of the pattern in octets, in its
//     canonical form); an equal-length tie between allow and disallow goes to
//     allow.
package robots

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jimsmart/grobotstxt"
)

const (
	// maxRules bounds the compiled rules of one group. 500 KiB of
	// "Disallow: /x" lines is about 40,000 rules, so the bound only stops
	// a pathological file (the rest of the file is ignored and reported).
	maxRules = 100_000
	// maxCrawlDelaySeconds: larger Crawl-delay values (up to
	// "inf" and numbers past float64) are read as this many seconds (31
	// years, within time.Duration), far above any fetch.max_crawl_delay,
	// so the host is skipped as asking too long a delay. (They were
	// ignored once, and the host that asked for the longest wait was
	// crawled at the site's pace.)
	maxCrawlDelaySeconds = 1e9
)

// Group is what one robots.txt says to one product token: the rules
// and Crawl-delay of the groups naming the token, or of the "*" groups when
// none does (RFC 9309 section 2.2.1).
type Group struct {
	matcher    *matcher
	crawlDelay float64 // seconds; 0 when absent
	hasDelay   bool
	rules      int // rules compiled
	dropped    int // rules over maxRules, ignored
}

// Compile parses body and compiles the rules that apply to token (a
// product token such as "newscrawl"; compared case-insensitively).
func Compile(body string, token string) *Group {
	c := &collector{token: token}
	grobotstxt.Parse(upperEscapes(body), c)
	g := &Group{}
	rules := c.global
	g.crawlDelay, g.hasDelay = c.globalDelay, c.globalHasDelay
	if c.everSpecific {
		rules = c.specific
		g.crawlDelay, g.hasDelay = c.specificDelay, c.specificHasDelay
	}
	if len(rules) > maxRules {
		g.dropped = len(rules) - maxRules
		rules = rules[:maxRules]
	}
	g.rules = len(rules)
	g.matcher = newMatcher(rules)
	return g
}

// Allowed reports whether the rules allow requestURI, the request target
// as it is sent (url.URL.RequestURI: escaped path and query), compared in
// RFC 9309's canonical form.
func (g *Group) Allowed(requestURI string) bool {
	return g.matcher.allowed(canonicalPath(requestURI))
}

// CrawlDelay is the group's Crawl-delay (not part of RFC 9309; honoured as
// most crawlers do); ok is false when the group gives none.
func (g *Group) CrawlDelay() (d time.Duration, ok bool) {
	if !g.hasDelay {
		return 0, false
	}
	return time.Duration(g.crawlDelay * float64(time.Second)), true
}

// ProductToken extracts the robots.txt product token from a User-Agent
// ("newscrawl/0.1 (+https://...)" -> "newscrawl"), lower-cased.
func ProductToken(ua string) string {
	return strings.ToLower(agentToken(ua))
}

// upperEscapes upper-cases the hex digits of every percent-escape.
// grobotstxt v1.0.3 upper-cases a pattern's escapes itself when one has a
// lower-case digit, but with c & 0xDF, which also turns the decimal digits
// of that pattern's escapes into control bytes ("%e6" becomes "%E\x16"):
// a rule such as "Disallow: /%e6%96%b0/" then matches nothing. With every
// escape already upper-case its code path is never taken.
func upperEscapes(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i+2 < len(b); i++ {
		if b[i] == '%' && isHex(b[i+1]) && isHex(b[i+2]) {
			for _, j := range []int{i + 1, i + 2} {
				if b[j] >= 'a' && b[j] <= 'f' {
					b[j] -= 'a' - 'A'
				}
			}
			i += 2
		}
	}
	return string(b)
}

// rule is one Allow or Disallow line in canonical form.
type rule struct {
	allow   bool
	pattern string
}

// collector is a grobotstxt.ParseHandler that keeps the rules of the
// groups for one token, with Google's grouping: consecutive User-agent lines
// form one group, which ends at the next User-agent line after a rule; rules
// before any User-agent line are ignored; all groups naming the token are
// merged, as are all "*" groups.
type collector struct {
	token string

	seenGlobal, seenSpecific, everSpecific, seenSeparator bool

	specific, global []rule

	specificDelay, globalDelay       float64
	specificHasDelay, globalHasDelay bool
}

func (c *collector) HandleRobotsStart() {}
func (c *collector) HandleRobotsEnd()   {}

func (c *collector) HandleUserAgent(_ int, value string) {
	if c.seenSeparator {
		c.seenSpecific, c.seenGlobal, c.seenSeparator = false, false, false
	}
	// Google: "*" followed by a space and more characters is still "*".
	if value != "" && value[0] == '*' && (len(value) == 1 || value[1] == ' ' || value[1] == '\t') {
		c.seenGlobal = true
		return
	}
	if c.token != "" && strings.EqualFold(agentToken(value), c.token) {
		c.everSpecific = true
		c.seenSpecific = true
	}
}

func (c *collector) add(allow bool, value string) {
	if !c.seenGlobal && !c.seenSpecific {
		return // outside any group
	}
	c.seenSeparator = true
	r := rule{allow: allow, pattern: canonicalPath(value)}
	if c.seenSpecific {
		c.specific = append(c.specific, r)
	} else {
		c.global = append(c.global, r)
	}
	// Google: an allowed ".../index.htm(l)" also allows its directory.
	if allow {
		if i := strings.LastIndexByte(value, '/'); i >= 0 && strings.HasPrefix(value[i:], "/index.htm") {
			c.add(true, value[:i+1]+"$")
		}
	}
}

func (c *collector) HandleAllow(_ int, value string)    { c.add(true, value) }
func (c *collector) HandleDisallow(_ int, value string) { c.add(false, value) }
func (c *collector) HandleSitemap(int, string)          {}

// HandleUnknownAction reads Crawl-delay (not part of RFC 9309; honoured as
// most crawlers do). An unparsable value is ignored like any bad line.
func (c *collector) HandleUnknownAction(_ int, action, value string) {
	switch strings.ToLower(action) {
	case "crawl-delay", "crawldelay", "crawl_delay":
	default:
		return
	}
	f, err := strconv.ParseFloat(value, 64)
	if errors.Is(err, strconv.ErrRange) && f > 0 {
		err = nil // past float64: +Inf, capped below
	}
	if err != nil || math.IsNaN(f) || f < 0 {
		return
	}
	f = min(f, maxCrawlDelaySeconds)
	if c.seenSpecific && !c.specificHasDelay {
		c.specificDelay, c.specificHasDelay = f, true
	}
	if !c.seenSpecific && c.seenGlobal && !c.globalHasDelay {
		c.globalDelay, c.globalHasDelay = f, true
	}
}

// agentToken is the product token at the start of a User-agent value or of
// our User-Agent header: letters, digits, '_' and '-' ("Googlebot/2.1" and
// "Foo Bar" give "Googlebot" and "Foo").
func agentToken(s string) string {
	s = strings.TrimSpace(s)
	i := 0
	for ; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			break
		}
	}
	return s[:i]
}

// canonicalPath is the comparison form of RFC 9309 section 2.2.2 for
// patterns and paths alike: octets outside printable US-ASCII (and space)
// percent-encoded, escapes of unreserved characters (ALPHA, DIGIT, "-", ".",
// "_", "~") decoded, hex digits of other escapes upper-cased.
func canonicalPath(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; b == '%' || b <= ' ' || b >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hex = "0123456789ABCDEF"
	var out strings.Builder
	out.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				out.WriteByte(v)
			} else {
				out.WriteByte('%')
				out.WriteByte(hex[v>>4])
				out.WriteByte(hex[v&15])
			}
			i += 2
		case b <= ' ' || b >= 0x7f:
			out.WriteByte('%')
			out.WriteByte(hex[b>>4])
			out.WriteByte(hex[b&15])
		default:
			out.WriteByte(b)
		}
	}
	return out.String()
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

func unhex(b byte) byte {
	switch {
	case b >= '0' && b <= '9':
		return b - '0'
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10
	default:
		return b - 'A' + 10
	}
}

func isUnreserved(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '-' || b == '.' || b == '_' || b == '~'
}

// matcher is the compiled form of one group's rules. It is immutable
// after construction and safe for concurrent use.
type matcher struct {
	trie byteTrie   // anchored literal prefixes of every rule
	node []trieInfo // per trie node: best plain rules ending there

	wild     []wildRule
	keys     *ahoCorasick // longest floating segment of each wild rule
	byKey    [][]int32    // key id -> wild rules, by priority, highest first
	scratch  sync.Pool    // *matchScratch
	numRules int
}

// trieInfo holds the highest priority (pattern length) of the plain rules
// whose literal ends at a trie node: prefix rules match any path through the
// node, "$" rules only a path ending there. 0 means none.
type trieInfo struct {
	prefixAllow, prefixDisallow int32
	exactAllow, exactDisallow   int32
}

// wildRule is a rule with at least one '*': segs[0] is anchored at the start
// of the path, the others are found in order; with end set the last one must
// end the path.
type wildRule struct {
	allow    bool
	priority int32
	end      bool
	segs     []string
}

func newMatcher(rules []rule) *matcher {
	m := &matcher{trie: newByteTrie()}
	m.node = append(m.node, trieInfo{})
	keyIDs := map[string]int32{}
	var keyList []string
	for _, r := range rules {
		prio := int32(len(r.pattern))
		if prio == 0 {
			continue // an empty pattern matches with priority 0: no effect
		}
		m.numRules++
		p, end := semanticPattern(r.pattern)
		segs := strings.Split(p, "*")
		if len(segs) == 1 {
			n := m.trie.insert(p)
			for int(n) >= len(m.node) {
				m.node = append(m.node, trieInfo{})
			}
			info := &m.node[n]
			switch {
			case end && r.allow:
				info.exactAllow = max(info.exactAllow, prio)
			case end:
				info.exactDisallow = max(info.exactDisallow, prio)
			case r.allow:
				info.prefixAllow = max(info.prefixAllow, prio)
			default:
				info.prefixDisallow = max(info.prefixDisallow, prio)
			}
			continue
		}
		key := ""
		for _, s := range segs[1:] {
			if len(s) > len(key) {
				key = s
			}
		}
		id, ok := keyIDs[key]
		if !ok {
			id = int32(len(keyList))
			keyIDs[key] = id
			keyList = append(keyList, key)
			m.byKey = append(m.byKey, nil)
		}
		m.byKey[id] = append(m.byKey[id], int32(len(m.wild)))
		m.wild = append(m.wild, wildRule{allow: r.allow, priority: prio, end: end, segs: segs})
	}
	for _, list := range m.byKey {
		sort.SliceStable(list, func(i, j int) bool { return m.wild[list[i]].priority > m.wild[list[j]].priority })
	}
	if len(keyList) > 0 {
		m.keys = newAhoCorasick(keyList)
		m.scratch.New = func() any { return &matchScratch{stamp: make([]uint32, len(keyList))} }
	}
	return m
}

// semanticPattern reduces a canonical pattern to what it matches: runs of
// '*' collapsed, trailing '*' dropped (a rule matches a prefix of the path
// anyway), a final '$' turned into end. '$' elsewhere is a literal.
func semanticPattern(p string) (string, bool) {
	end := strings.HasSuffix(p, "$")
	if end {
		p = p[:len(p)-1]
	}
	for strings.Contains(p, "**") {
		p = strings.ReplaceAll(p, "**", "*")
	}
	if strings.HasSuffix(p, "*") {
		p = strings.TrimRight(p, "*")
		end = false
	}
	return p, end
}

type matchScratch struct {
	stamp []uint32
	gen   uint32
}

// allowed reports whether path (canonical form, starting with "/") may be
// fetched.
func (m *matcher) allowed(path string) bool {
	if m.numRules == 0 {
		return true
	}
	var bestAllow, bestDisallow int32
	note := func(allow bool, p int32) {
		if allow {
			bestAllow = max(bestAllow, p)
		} else {
			bestDisallow = max(bestDisallow, p)
		}
	}
	n := int32(0)
	info := m.node[0]
	note(true, info.prefixAllow)
	note(false, info.prefixDisallow)
	if path == "" {
		note(true, info.exactAllow)
		note(false, info.exactDisallow)
	}
	for i := 0; i < len(path); i++ {
		var ok bool
		if n, ok = m.trie.next(n, path[i]); !ok {
			break
		}
		if int(n) >= len(m.node) {
			continue
		}
		info := m.node[n]
		note(true, info.prefixAllow)
		note(false, info.prefixDisallow)
		if i == len(path)-1 {
			note(true, info.exactAllow)
			note(false, info.exactDisallow)
		}
	}
	if m.keys != nil {
		s := m.scratch.Get().(*matchScratch)
		s.gen++
		if s.gen == 0 { // wrapped: reset stamps
			clear(s.stamp)
			s.gen = 1
		}
		m.keys.scan(path, func(id int32) {
			if s.stamp[id] == s.gen {
				return
			}
			s.stamp[id] = s.gen
			for _, wi := range m.byKey[id] {
				w := &m.wild[wi]
				if w.priority <= min(bestAllow, bestDisallow) {
					break // sorted: nothing further can change the verdict
				}
				if w.allow && w.priority <= bestAllow || !w.allow && w.priority <= bestDisallow {
					continue
				}
				if w.matches(path) {
					note(w.allow, w.priority)
				}
			}
		})
		m.scratch.Put(s)
	}
	if bestAllow == 0 && bestDisallow == 0 {
		return true
	}
	return bestAllow >= bestDisallow
}

// matches verifies a wildcard rule by leftmost search of each segment,
// which is exact for patterns whose only wildcard is '*'.
func (w *wildRule) matches(path string) bool {
	if !strings.HasPrefix(path, w.segs[0]) {
		return false
	}
	pos := len(w.segs[0])
	last := len(w.segs) - 1
	for i := 1; i < last; i++ {
		j := strings.Index(path[pos:], w.segs[i])
		if j < 0 {
			return false
		}
		pos += j + len(w.segs[i])
	}
	if w.end {
		return len(path)-len(w.segs[last]) >= pos && strings.HasSuffix(path, w.segs[last])
	}
	return strings.Contains(path[pos:], w.segs[last])
}

// byteTrie is a trie over bytes with its edges in one hash map (node<<8 |
// byte -> child): compact for large sparse rule sets.
type byteTrie struct {
	edges map[uint32]int32
	size  int32
}

func newByteTrie() byteTrie { return byteTrie{edges: map[uint32]int32{}, size: 1} }

func (t *byteTrie) next(n int32, b byte) (int32, bool) {
	c, ok := t.edges[uint32(n)<<8|uint32(b)]
	return c, ok
}

func (t *byteTrie) insert(s string) int32 {
	n := int32(0)
	for i := 0; i < len(s); i++ {
		k := uint32(n)<<8 | uint32(s[i])
		c, ok := t.edges[k]
		if !ok {
			c = t.size
			t.size++
			t.edges[k] = c
		}
		n = c
	}
	return n
}

// ahoCorasick finds which of a set of keys occur in a text in one pass
// (Aho and Corasick 1975): goto edges in a byteTrie, failure links, and
// dictionary links to the nearest key-ending node on the failure chain.
type ahoCorasick struct {
	trie byteTrie
	fail []int32
	out  []int32 // key id ending at the node, -1 none
	dict []int32 // nearest node on the failure chain with out >= 0, -1 none
}

func newAhoCorasick(keys []string) *ahoCorasick {
	a := &ahoCorasick{trie: newByteTrie()}
	children := [][]uint32{nil} // per node: edge keys (node<<8|byte)
	ends := map[int32]int32{}
	for id, k := range keys {
		n := int32(0)
		for i := 0; i < len(k); i++ {
			key := uint32(n)<<8 | uint32(k[i])
			c, ok := a.trie.edges[key]
			if !ok {
				c = a.trie.size
				a.trie.size++
				a.trie.edges[key] = c
				children[n] = append(children[n], key)
				children = append(children, nil)
			}
			n = c
		}
		ends[n] = int32(id)
	}
	size := a.trie.size
	a.fail = make([]int32, size)
	a.out = make([]int32, size)
	a.dict = make([]int32, size)
	for i := range a.out {
		a.out[i], a.dict[i] = -1, -1
	}
	for n, id := range ends {
		a.out[n] = id
	}
	queue := make([]int32, 0, size)
	for _, key := range children[0] {
		c := a.trie.edges[key]
		queue = append(queue, c) // fail = root
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, key := range children[n] {
			c := a.trie.edges[key]
			b := byte(key)
			f := a.fail[n]
			for {
				if t, ok := a.trie.next(f, b); ok {
					a.fail[c] = t
					break
				}
				if f == 0 {
					a.fail[c] = 0
					break
				}
				f = a.fail[f]
			}
			if fc := a.fail[c]; a.out[fc] >= 0 {
				a.dict[c] = fc
			} else {
				a.dict[c] = a.dict[fc]
			}
			queue = append(queue, c)
		}
	}
	return a
}

// scan calls found for every key occurrence in text (a key may be
// reported more than once).
func (a *ahoCorasick) scan(text string, found func(id int32)) {
	n := int32(0)
	for i := 0; i < len(text); i++ {
		b := text[i]
		for {
			if t, ok := a.trie.next(n, b); ok {
				n = t
				break
			}
			if n == 0 {
				break
			}
			n = a.fail[n]
		}
		if a.out[n] >= 0 {
			found(a.out[n])
		}
		for d := a.dict[n]; d >= 0; d = a.dict[d] {
			found(a.out[d])
		}
	}
}
