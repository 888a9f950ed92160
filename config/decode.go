package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limits of the site-file decoder. Each is reported when it is reached,
// never applied silently.
const (
	// MaxFileSize is the largest site file read; a larger one is an error.
	MaxFileSize = 4 << 20
	// maxValues bounds the values decoded, aliases expanded (a file of a
	// few aliases can name millions of values).
	maxValues = 200_000
	// maxProblems is the number of problems listed; the rest are counted.
	maxProblems = 100
	// maxMergeDepth bounds nested "<<" merges.
	maxMergeDepth = 32
)

// Problem is one thing wrong with a site file: where (a path such as
// "sites[0].delay" and a line, either may be missing) and what.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string {
	switch {
	case p.Path != "" && p.Line > 0:
		return fmt.Sprintf("%s (line %d): %s", p.Path, p.Line, p.Msg)
	case p.Path != "":
		return p.Path + ": " + p.Msg
	case p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return p.Msg
}

// decoder walks a yaml.Node tree into a struct by its yaml tags and notes
// every problem (unknown or duplicate keys, values of the wrong type,
// out-of-range numbers) instead of stopping at the first. It also records
// the line of every value by path, for Validate's messages.
type decoder struct {
	problems []Problem
	lines    map[string]int
	values   int
	overflow bool
}

func (d *decoder) add(path string, line int, format string, a ...any) {
	d.problems = append(d.problems, Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, a...)})
}

var (
	durationType = reflect.TypeOf(Duration(0))
	sizeType     = reflect.TypeOf(Size(0))
	siteType     = reflect.TypeOf(Site{})
	apiType      = reflect.TypeOf(API{})
)

// deref follows an alias.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxMergeDepth; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// value decodes n into v, reporting problems under path.
func (d *decoder) value(n *yaml.Node, path string, v reflect.Value) {
	if d.overflow {
		return
	}
	if d.values++; d.values > maxValues {
		d.overflow = true
		d.add(path, n.Line, "more than %d values (aliases expanded): file rejected", maxValues)
		return
	}
	n = deref(n)
	if n == nil || n.Kind == yaml.AliasNode {
		d.add(path, 0, "alias chain too long")
		return
	}
	if d.lines != nil {
		d.lines[path] = n.Line
	}
	t := v.Type()
	switch {
	case t == durationType:
		if s, ok := d.scalar(n, path); ok {
			dur, err := ParseDuration(s)
			if err != nil {
				d.add(path, n.Line, "%v", err)
				return
			}
			v.SetInt(int64(dur))
		}
		return
	case t == sizeType:
		if s, ok := d.scalar(n, path); ok {
			sz, err := ParseSize(s)
			if err != nil {
				d.add(path, n.Line, "%v", err)
				return
			}
			v.SetInt(int64(sz))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == apiType {
			d.api(n, path, v)
			return
		}
		d.mapping(n, path, v, 0)
	case reflect.Slice:
		d.sequence(n, path, v)
	case reflect.String:
		if s, ok := d.scalar(n, path); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if s, ok := d.scalar(n, path); ok {
			var b bool
			if n.Tag != "!!bool" || n.Decode(&b) != nil {
				d.add(path, n.Line, "must be true or false, got %q", s)
				return
			}
			v.SetBool(b)
		}
	case reflect.Int, reflect.Int64:
		if s, ok := d.scalar(n, path); ok {
			var i int64
			if n.Tag != "!!int" || n.Decode(&i) != nil || v.OverflowInt(i) {
				d.add(path, n.Line, "must be an integer, got %q", s)
				return
			}
			v.SetInt(i)
		}
	case reflect.Float64:
		if s, ok := d.scalar(n, path); ok {
			var f float64
			if (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil {
				d.add(path, n.Line, "must be a number, got %q", s)
				return
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				d.add(path, n.Line, "must be a finite number, got %q", s)
				return
			}
			v.SetFloat(f)
		}
	default:
		// Only the types of this package's structs reach here.
		d.add(path, n.Line, "cannot decode into %s", t)
	}
}

// scalar returns the text of a scalar node; anything else is a problem.
func (d *decoder) scalar(n *yaml.Node, path string) (string, bool) {
	switch {
	case n.Kind != yaml.ScalarNode:
		d.add(path, n.Line, "must be a single value, got a %s", kindName(n))
		return "", false
	case isNull(n):
		d.add(path, n.Line, "has no value (remove the key to use the default)")
		return "", false
	}
	return n.Value, true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.DocumentNode:
		return "document"
	}
	return "value"
}

func (d *decoder) sequence(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		v.SetZero()
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.add(path, n.Line, "must be a list, got %s", describe(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), 0, len(n.Content))
	for i, e := range n.Content {
		el := reflect.New(v.Type().Elem()).Elem()
		switch el.Type() {
		case siteType:
			el.Set(reflect.ValueOf(DefaultSite()))
		case apiType:
			el.Set(reflect.ValueOf(DefaultAPI()))
		}
		d.value(e, fmt.Sprintf("%s[%d]", path, i), el)
		out = reflect.Append(out, el)
	}
	v.Set(out)
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return "a " + kindName(n)
}

type entry struct{ key, val *yaml.Node }

// entries lists a mapping's key/value pairs with "<<" merges applied:
// explicit keys win over merged ones, earlier merges over later ones.
func (d *decoder) entries(n *yaml.Node, path string, depth int) []entry {
	if depth > maxMergeDepth {
		d.add(path, n.Line, "merges nested more than %d deep", maxMergeDepth)
		return nil
	}
	var explicit []entry
	var merged [][]entry
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.add(path, k.Line, "a key must be a plain name, got a %s", kindName(k))
			continue
		}
		if k.Tag == "!!merge" {
			srcs := []*yaml.Node{deref(val)}
			if srcs[0] != nil && srcs[0].Kind == yaml.SequenceNode {
				srcs = srcs[0].Content
			}
			for _, s := range srcs {
				s = deref(s)
				if s == nil || s.Kind != yaml.MappingNode {
					d.add(path, k.Line, "<< must merge a mapping")
					continue
				}
				merged = append(merged, d.entries(s, path, depth+1))
			}
			continue
		}
		if line, dup := first[k.Value]; dup {
			d.add(join(path, k.Value), k.Line, "duplicate key (first at line %d)", line)
			continue
		}
		first[k.Value] = k.Line
		explicit = append(explicit, entry{k, val})
	}
	out := explicit
	for _, m := range merged {
		for _, e := range m {
			if _, ok := first[e.key.Value]; !ok {
				first[e.key.Value] = e.key.Line
				out = append(out, e)
			}
		}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping decodes a mapping into the struct v by its yaml tags.
func (d *decoder) mapping(n *yaml.Node, path string, v reflect.Value, depth int) {
	if isNull(n) {
		return // an empty section: the defaults stay
	}
	if n.Kind != yaml.MappingNode {
		where := path
		if where == "" {
			where = "file"
		}
		d.add(path, n.Line, "%s must be a mapping of keys to values, got %s", where, describe(n))
		return
	}
	t := v.Type()
	fields := map[string]int{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" && t.Field(i).IsExported() {
			fields[tag] = i
			names = append(names, tag)
		}
	}
	for _, e := range d.entries(n, path, depth) {
		p := join(path, e.key.Value)
		i, ok := fields[e.key.Value]
		if !ok {
			msg := "unknown key"
			if labKey(p) {
				msg += ": a Simhash feature option, moved to the lab (newscrawl-lab eval); the crawler computes its Simhash with the default features"
			} else if s := suggest(e.key.Value, names); s != "" {
				msg += " (did you mean " + s + "?)"
			}
			d.add(p, e.key.Line, "%s", msg)
			continue
		}
		d.value(e.val, p, v.Field(i))
	}
}

// suggest returns the name closest to key when it is close enough to be a
// likely typo, else "".
func suggest(key string, names []string) string {
	best, bestD := "", math.MaxInt
	for _, n := range names {
		if dist := EditDistance(key, n); dist < bestD {
			best, bestD = n, dist
		}
	}
	if bestD <= 2 || bestD <= len(key)/3 {
		return best
	}
	return ""
}

// EditDistance is the Levenshtein distance of a and b in bytes, for "did
// you mean" suggestions of keys and command names (ASCII words; a long
// word is only compared on its first 64 bytes).
func EditDistance(a, b string) int {
	const limit = 64
	a, b = a[:min(len(a), limit)], b[:min(len(b), limit)]
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// api decodes one entry of apis. The file shape names the key url
// twice in one entry: the endpoint ("https://…/api/roll/get?page={page}")
// and the item field holding the article URL ("url", "docurl"). They are
// told apart by their values: an endpoint has a "/" or ":", a field name
// has neither; two values that look alike are taken in order (endpoint
// first). The item field's line is recorded under path+".url#item".
func (d *decoder) api(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.mapping(n, path, v, 0)
		return
	}
	rest := *n
	rest.Content = nil
	var urls []entry
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && k.Value == "url" {
			urls = append(urls, entry{k, n.Content[i+1]})
			continue
		}
		rest.Content = append(rest.Content, k, n.Content[i+1])
	}
	d.mapping(&rest, path, v, 0)
	a := v.Addr().Interface().(*API)
	looksEndpoint := func(e entry) bool {
		val := deref(e.val)
		return val != nil && val.Kind == yaml.ScalarNode && strings.ContainsAny(val.Value, "/:")
	}
	switch len(urls) {
	case 0:
		return
	case 1:
		if looksEndpoint(urls[0]) {
			d.apiString(urls[0], path+".url", path+".url", &a.URL)
		} else {
			d.apiString(urls[0], path+".url", path+".url#item", &a.ItemURL)
		}
		return
	}
	if !looksEndpoint(urls[0]) && looksEndpoint(urls[1]) {
		urls[0], urls[1] = urls[1], urls[0]
	}
	d.apiString(urls[0], path+".url", path+".url", &a.URL)
	d.apiString(urls[1], path+".url", path+".url#item", &a.ItemURL)
	for _, e := range urls[2:] {
		d.add(path+".url", e.key.Line, "url given %d times (an api entry has the endpoint and the item field)", len(urls))
	}
}

// apiString decodes the string value of an api's url key; shown is the
// path of its messages, key the path its line is recorded under.
func (d *decoder) apiString(e entry, shown, key string, dst *string) {
	val := deref(e.val)
	if val == nil {
		d.add(shown, e.key.Line, "alias chain too long")
		return
	}
	d.lines[key] = val.Line
	if s, ok := d.scalar(val, shown); ok {
		*dst = s
	}
}

// labKey reports whether path is a Simhash feature option that moved to
// the lab (dedup.Research): the crawler's candidate indexes never take
// Simhash candidates, so none of them changed a verdict.
func labKey(path string) bool {
	switch path {
	case "dedup.hash", "dedup.weighting", "dedup.top_m", "dedup.jtidf", "dedup.positional":
		return true
	}
	return false
}
