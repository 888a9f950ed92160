package storage

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleHit is an article or a duplicate whose title matched a title
// search: what a listing of results shows. ID is the article's id (0 for a
// duplicate); DupOf, Reason and Jaccard are a duplicate's.
type TitleHit struct {
	ID      int64
	URL     string
	Site    string
	Title   string
	Cluster int64
	RunID   int64
	DupOf   int64
	Reason  string
	Jaccard float64
}

// MinIndexedQuery is the shortest query, in characters, that a trigram
// title index can answer: a query of fewer characters holds no trigram, so
// the stores scan the titles instead (still exact, not indexed).
const MinIndexedQuery = 3

// TitleMatches is the rule of a title search: title contains q, both
// lower-cased (Unicode simple case mapping, as strings.ToLower). The
// indexes only narrow the rows; every candidate is checked with it.
func TitleMatches(title, q string) bool {
	return strings.Contains(strings.ToLower(title), strings.ToLower(q))
}

// Caseless reports whether no character of q has another case (Chinese,
// digits, punctuation): then a title matches q exactly when it holds q as
// it is, and a store may search with a plain substring test.
func Caseless(q string) bool {
	for _, r := range q {
		if r == utf8.RuneError || unicode.SimpleFold(r) != r {
			return false
		}
	}
	return true
}

// StableFold reports whether every character of q is without case or an
// ASCII letter whose case partners are all ASCII: then any lower() that
// folds ASCII (SQLite's, PostgreSQL's in any locale) folds q, and what
// matches it, as strings.ToLower does, and a store may search with it.
func StableFold(q string) bool {
	for _, r := range q {
		if r == utf8.RuneError {
			return false
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if r >= utf8.RuneSelf || f >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}
