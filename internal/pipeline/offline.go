package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/dedupin"
)

// OfflineDoc is one input document of offline dedup.
type OfflineDoc struct {
	ID    json.RawMessage `json:"id"`
	Title string          `json:"title"`
	Text  string          `json:"text"`
}

// OfflineResult is one output line of offline dedup.
type OfflineResult struct {
	ID          json.RawMessage `json:"id"`
	Cluster     json.RawMessage `json:"cluster"`
	Kept        bool            `json:"kept"`
	DupOf       json.RawMessage `json:"dup_of"`
	Jaccard     *float64        `json:"jaccard,omitempty"`
	Containment *float64        `json:"containment,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	// PartialOf is set for a partial reprint (reason "partial"): the kept
	// article re-uses passages of this one; OwnShare is the share of its
	// content words outside them.
	PartialOf json.RawMessage `json:"partial_of,omitempty"`
	OwnShare  *float64        `json:"own_share,omitempty"`
	// Passages are the shared runs of content words (winnowing) with
	// dup_of or partial_of: [start here, start there, length].
	Passages [][3]int `json:"passages,omitempty"`
}

// ReadJSONL reads {"id","title","text"} lines strictly (internal/dedupin):
// a line without "text" or "id", with an unknown key, or repeating an id is
// an error naming the line; blank lines and a leading BOM are accepted.
func ReadJSONL(path string) ([]OfflineDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in, err := dedupin.ReadJSONL(f, path)
	if err != nil {
		return nil, err
	}
	docs := make([]OfflineDoc, len(in))
	for i, d := range in {
		docs[i] = OfflineDoc{ID: d.ID, Title: d.Title, Text: d.Text}
	}
	return docs, nil
}

// ReadHTMLDir extracts every .html/.htm/.shtml/.xhtml file under dir (see
// ExtractPage); the id is the path relative to dir. Pages without an
// article are kept with empty text (they never join a cluster); skip is
// called for each of them with the reason.
func ReadHTMLDir(dir string, skip func(rel string, err error)) ([]OfflineDoc, error) {
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return nil, err
	}
	var docs []OfflineDoc
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !isHTMLName(path) {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		id, _ := json.Marshal(filepath.ToSlash(rel))
		doc := OfflineDoc{ID: id}
		raw, err := ReadLimited(path, MaxPageBytes)
		if errors.Is(err, ErrTooLarge) {
			skip(rel, err)
			docs = append(docs, doc)
			return nil
		}
		if err != nil {
			return err
		}
		a, _, err := ExtractPage(ex, Page{URL: "file://" + filepath.ToSlash(path), Body: raw})
		if err != nil {
			skip(rel, err)
		} else {
			doc.Title, doc.Text = a.Title, a.Text
		}
		docs = append(docs, doc)
		return nil
	})
	return docs, err
}

func isHTMLName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".html", ".htm", ".shtml", ".xhtml":
		return true
	}
	return false
}

// Dedup clusters docs with eng in input order (Single-Pass, dedup.Batch).
// Clusters can merge later in the batch (dedup.Verdict.Merged), so the
// results are complete only once every verdict is in; a cluster is named
// by the id of its first document.
func Dedup(ctx context.Context, eng *dedup.Engine, docs []OfflineDoc) (results []OfflineResult, kept, dups int, err error) {
	batch := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		batch[i] = dedup.Doc{Title: d.Title, Text: d.Text}
	}
	results = make([]OfflineResult, len(docs))
	clusters := make([]uint64, len(docs))
	err = eng.Batch(ctx, batch, func(i int, v dedup.Verdict) error {
		r := OfflineResult{ID: docs[i].ID, Kept: !v.Duplicate, DupOf: json.RawMessage("null"), Reason: v.Reason}
		clusters[i] = uint64(i)
		if v.Duplicate {
			dups++
			r.DupOf = docs[v.DupOf].ID
			clusters[i] = v.Cluster
			j, c := v.Jaccard, v.Containment
			r.Jaccard, r.Containment = &j, &c
		} else {
			kept++
		}
		if v.Reason == "partial" {
			r.PartialOf = docs[v.PartialOf].ID
			own := v.OwnShare
			r.OwnShare = &own
		}
		for _, p := range v.Passages {
			r.Passages = append(r.Passages, [3]int{p.StartA, p.StartB, p.Len})
		}
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	for i := range results {
		results[i].Cluster = docs[eng.ClusterOf(clusters[i])].ID
	}
	return results, kept, dups, nil
}
