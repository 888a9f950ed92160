package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxSourceNameRunes bounds one source_names entry: 来源 names are short
// (新华社, 人民日报海外版); a longer entry is a pasted line, not a name.
const MaxSourceNameRunes = 32

// validateSourceNames checks every site's source_names: no empty or
// over-long name, none twice on one site, and none claimed by two sites
// (a cluster's original must be one site's copy).
func (c *Config) validateSourceNames(add addFunc) {
	owner := map[string]int{}
	for i := range c.Sites {
		at := fmt.Sprintf("sites[%d].source_names", i)
		for j, n := range c.Sites[i].SourceNames {
			path := fmt.Sprintf("%s[%d]", at, j)
			t := strings.TrimSpace(n)
			switch k, dup := owner[t]; {
			case t == "":
				add(path, "must not be empty")
			case utf8.RuneCountInString(t) > MaxSourceNameRunes:
				add(path, "%q is longer than %d characters: a 来源 name, not a line", n, MaxSourceNameRunes)
			case dup && k == i:
				add(path, "%q is listed twice", t)
			case dup:
				add(path, "%q is already a source name of sites[%d]", t, k)
			default:
				owner[t] = i
			}
		}
	}
}

// SourceNames maps each site's name to its source_names (sites without
// any left out; nil when none has any).
func (c *Config) SourceNames() map[string][]string {
	var out map[string][]string
	for _, s := range c.Sites {
		if len(s.SourceNames) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		for _, n := range s.SourceNames {
			out[s.Name] = append(out[s.Name], strings.TrimSpace(n))
		}
	}
	return out
}
