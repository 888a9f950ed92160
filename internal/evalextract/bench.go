package evalextract

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// BenchPage is one article URL of a reprint-web bench split, with the
// bytes and headers the bench server sends for it and its truth.
type BenchPage struct {
	Site, Path  string
	URL         string
	File        string // absolute path of the served body
	ContentType string // Content-Type header as served
	Truth       BenchTruth
}

// BenchTruth holds the truth.jsonl fields the extraction evaluation uses.
type BenchTruth struct {
	URL          string  `json:"url"`
	Site         string  `json:"site"`
	Path         string  `json:"path"`
	Title        string  `json:"title"`
	Text         string  `json:"text"`
	Charset      string  `json:"charset"`
	MetaCharset  *string `json:"meta_charset"`
	HeaderCharst *string `json:"header_charset"`
	Mislabeled   bool    `json:"meta_mislabeled"`
	Disallowed   bool    `json:"disallowed"`
	Template     string  `json:"template"`
	RelatedBlock *string `json:"related_block"`
	Edits        []Edit  `json:"edits"`
}

// Edit is one edit applied to a bench copy.
type Edit struct {
	Op         string `json:"op"`
	Text       string `json:"text"`
	InsideBody bool   `json:"inside_body"`
	Position   string `json:"position"`
}

type routesFile struct {
	Sites []struct {
		Name   string `json:"name"`
		Routes map[string]struct {
			File    string            `json:"file"`
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
		} `json:"routes"`
	} `json:"sites"`
}

// LoadBench reads routes.json and truth.jsonl of a bench split directory
// and returns its article pages; disallowed copies are included only when
// withDisallowed is set.
func LoadBench(split string, withDisallowed bool) ([]BenchPage, error) {
	var rf routesFile
	if err := readJSON(filepath.Join(split, "routes.json"), &rf); err != nil {
		return nil, fmt.Errorf("load bench: %w", err)
	}
	f, err := os.Open(filepath.Join(split, "truth.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("load bench: %w", err)
	}
	defer f.Close()
	var pages []BenchPage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var t BenchTruth
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("load bench: truth.jsonl:%d: %w", line, err)
		}
		if t.Disallowed && !withDisallowed {
			continue
		}
		var found bool
		for _, s := range rf.Sites {
			if s.Name != t.Site {
				continue
			}
			rt, ok := s.Routes[t.Path]
			if !ok || rt.File == "" {
				break
			}
			pages = append(pages, BenchPage{
				Site: t.Site, Path: t.Path, URL: t.URL,
				File:        filepath.Join(split, rt.File),
				ContentType: rt.Headers["Content-Type"],
				Truth:       t,
			})
			found = true
			break
		}
		if !found {
			return nil, fmt.Errorf("load bench: no route with a file for %s %s", t.Site, t.Path)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load bench: truth.jsonl: %w", err)
	}
	return pages, nil
}

// readJSON decodes the JSON file at path into v; a decoding error names
// the file.
func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}
