package simhash

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// robustSet is /work/shared/bench/dev/robust.jsonl relative to the shared
// directory, which sits next to the repository root.
const robustSet = "bench/dev/robust.jsonl"

// sharedFile locates rel under ../shared relative to the directory holding
// go.mod. It skips the benchmark when the data is absent, or fails when the
// CI environment variable is set.
func sharedFile(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			dir = ""
			break
		}
		dir = parent
	}
	if dir != "" {
		p := filepath.Join(dir, "..", "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("shared data %s not found (../shared next to the repository root)", rel)
	}
	tb.Skipf("shared data %s not found (../shared next to the repository root); skipping", rel)
	return ""
}

// robustDoc is one line of robust.jsonl.
type robustDoc struct {
	ID    string `json:"id"`
	Group string `json:"group"`
	Op    string `json:"op"`
	Text  string `json:"text"`
}

func loadRobust(tb testing.TB) []robustDoc {
	tb.Helper()
	f, err := os.Open(sharedFile(tb, robustSet))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var docs []robustDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d robustDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatalf("robust.jsonl: %v", err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(docs) == 0 {
		tb.Fatal("robust.jsonl is empty")
	}
	return docs
}

// functionChars are frequent Chinese function characters. pseudoWords
// emits them as words of their own, as a segmenter would.
const functionChars = "的了在是和与对将也这中为有不一上等及被把从到就都而要以于由向"

// pseudoWords splits text into pseudo-words (there is no segmenter in this
// package): punctuation and function characters stand alone, other runs are
// cut into chunks of 1-3 runes whose length depends only on the chunk's
// first rune, so an edit only changes the chunks around it.
func pseudoWords(text string) []string {
	rs := []rune(text)
	alone := func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || strings.ContainsRune(functionChars, r)
	}
	var out []string
	for i := 0; i < len(rs); {
		if alone(rs[i]) {
			if !unicode.IsSpace(rs[i]) {
				out = append(out, string(rs[i]))
			}
			i++
			continue
		}
		n := 1 + int(uint32(rs[i])*2654435761>>16)%3
		j := i + 1
		for j < len(rs) && j < i+n && !alone(rs[j]) {
			j++
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}
