package extract

import (
	"strings"
	"unicode"
)

// isStripped reports whether r is removed from extracted text: C0 and C1
// control characters other than newline and tab (ESC of terminal escape
// sequences, CR, DEL, NUL), the Unicode bidirectional controls (U+202A-U+202E,
// U+2066-U+2069, U+200E, U+200F, U+061C: they reorder what a reader sees,
// as in "Trojan Source", CVE-2021-42574) and U+FEFF (a stray BOM).
func isStripped(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Bidi_Control, r) || r == '\uFEFF'
}

// stripControls removes the characters isStripped names. It returns s
// itself when there is nothing to remove.
func stripControls(s string) string {
	if strings.IndexFunc(s, isStripped) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isStripped(r) {
			return -1
		}
		return r
	}, s)
}

// sanitize strips control characters from every text field of a, the one
// place extracted text leaves the package. When it removes something from
// Text, the lines are trimmed again and lines left empty are dropped;
// newlines between paragraphs stay.
func sanitize(a *Article) {
	a.Title = strings.TrimSpace(stripControls(a.Title))
	a.Source = strings.TrimSpace(stripControls(a.Source))
	a.Author = strings.TrimSpace(stripControls(a.Author))
	a.Editor = strings.TrimSpace(stripControls(a.Editor))
	if t := stripControls(a.Text); t != a.Text {
		lines := strings.Split(t, "\n")
		kept := lines[:0]
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" {
				kept = append(kept, l)
			}
		}
		a.Text = strings.Join(kept, "\n")
	}
}
