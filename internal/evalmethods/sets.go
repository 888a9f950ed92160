// Package evalmethods measures the published methods that the product may
// use next to its default decision (keyword fingerprints of the crawler
// book chapter, winnowing of Schleimer et al. 2003, P-Simhash of Zhang
// Yanan et al. 2022, the antecedent sets of Li Yan et al. 2017) on the dev
// data sets:
// the reprint web's expected texts (bench/dev/truth.jsonl), the Li Gang et
// al. robustness set (bench/dev/robust.jsonl) and the SpotSigs gold set
// (dev half, extracted).
package evalmethods

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/dataset"
)

// Doc is one labelled text of a data set.
type Doc struct {
	ID    string
	Label string // documents with the same label are near-duplicates
	Title string
	Text  string
	// Kind is the web's story kind (regular, followup, brief) or the
	// robustness set's edit ("orig", "add", "delete", "reorder", "distinct").
	Kind string
	Pct  int
	// FollowupOf is the story a follow-up re-uses sentences from.
	FollowupOf string
}

// Set is a named data set.
type Set struct {
	Name string
	Docs []Doc
}

// truthLine is the part of a bench/dev/truth.jsonl line we read.
type truthLine struct {
	URL        string `json:"url"`
	StoryID    string `json:"story_id"`
	Title      string `json:"title"`
	Text       string `json:"text"`
	Disallowed bool   `json:"disallowed"`
	StoryKind  string `json:"story_kind"`
	FollowupOf string `json:"followup_of"`
}

// LoadWeb reads the allowed article URLs of a reprint-web truth file
// (expected texts, in file order).
func LoadWeb(path string) (Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return Set{}, err
	}
	defer f.Close()
	s := Set{Name: "reprint web (truth texts)"}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var t truthLine
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return Set{}, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if t.Disallowed {
			continue
		}
		s.Docs = append(s.Docs, Doc{ID: t.URL, Label: t.StoryID, Title: t.Title, Text: t.Text, Kind: t.StoryKind, FollowupOf: t.FollowupOf})
	}
	return s, sc.Err()
}

// LoadRobust reads the robustness set.
func LoadRobust(path string) (Set, error) {
	docs, err := dataset.LoadRobust(path)
	if err != nil {
		return Set{}, err
	}
	s := Set{Name: "robust.jsonl"}
	for _, d := range docs {
		s.Docs = append(s.Docs, Doc{ID: d.ID, Label: d.Group, Text: d.Text, Kind: d.Op, Pct: d.Pct})
	}
	return s, nil
}

// LoadGoldset reads the SpotSigs gold set (dev half) and extracts every
// page; pages without an article keep an empty text.
func LoadGoldset(neardupDir string) (Set, error) {
	docs, err := dataset.LoadGoldset(filepath.Join(neardupDir, "spotsigs-goldset-dev.tsv"), filepath.Join(neardupDir, "spotsigs-goldset-dev.tar.gz"))
	if err != nil {
		return Set{}, err
	}
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return Set{}, err
	}
	s := Set{Name: "SpotSigs gold set (dev)"}
	for _, d := range docs {
		doc := Doc{ID: d.Cluster + "/" + d.File, Label: d.Cluster}
		if body, _, err := decode.ToUTF8(d.HTML, "", ""); err == nil {
			if a, err := ex.Extract("http://goldset/"+d.Cluster+"/"+d.File, body); err == nil {
				doc.Title, doc.Text = a.Title, a.Text
			}
		}
		s.Docs = append(s.Docs, doc)
	}
	return s, nil
}

// Paths are the dev data files under a shared directory.
type Paths struct{ Truth, Robust, Neardup string }

// DevPaths returns the dev data paths under shared.
func DevPaths(shared string) Paths {
	return Paths{
		Truth:   filepath.Join(shared, "bench", "dev", "truth.jsonl"),
		Robust:  filepath.Join(shared, "bench", "dev", "robust.jsonl"),
		Neardup: filepath.Join(shared, "data", "neardup"),
	}
}

// DevSets are the dev sets loaded by LoadDev; Gold is loaded only when asked.
type DevSets struct{ Web, Robust, Gold Set }

// LoadDev loads the reprint web's texts and robust.jsonl under shared, and
// the SpotSigs gold set too when withGold is set.
func LoadDev(shared string, withGold bool) (DevSets, error) {
	p := DevPaths(shared)
	var d DevSets
	var err error
	if d.Web, err = LoadWeb(p.Truth); err != nil {
		return d, err
	}
	if d.Robust, err = LoadRobust(p.Robust); err != nil {
		return d, err
	}
	if withGold {
		if d.Gold, err = LoadGoldset(p.Neardup); err != nil {
			return d, err
		}
	}
	return d, nil
}
