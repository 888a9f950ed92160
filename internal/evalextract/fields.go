package evalextract

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/extract"
)

// Fields are the article fields the per-field benchmark reports.
var fieldNames = []string{"title", "body", "date", "来源", "author", "editor"}

// FieldScore is the accuracy of one field on one dataset: Value is a
// share in [0, 1] (the body's is its mean text F1), Pages the pages
// labelled for it, From the table row (or page scores) it comes from.
// A dataset without labels for a field has no FieldScore for it.
type FieldScore struct {
	Dataset, Field string
	Value          float64
	Pages          int
	From           string
}

// fieldSource says where a field's figure is in the report: a row of
// the dataset (a share, or a count out of the row's pages), the mean F1
// of the dataset's page scores, or the sum of two count rows out of the
// sum of their "of N" notes.
type fieldSource struct {
	dataset, field string
	row            string   // metric name of the row
	pagesOf        string   // r.Pages dataset whose mean F1 is the value
	counts         []string // count rows "K / of N" summed
}

// fieldSources maps the report's rows to fields, per dataset.
var fieldSources = []fieldSource{
	{dataset: "reprint-web", field: "title", row: "title exact"},
	{dataset: "reprint-web", field: "body", row: "mean bigram F1"},
	{dataset: "reprint-web", field: "来源", row: "source accuracy (来源 lines added)"},
	{dataset: "reprint-web", field: "editor", row: "editor accuracy (责任编辑 lines added)"},
	{dataset: "cwced", field: "body", row: "mean bigram F1"},
	{dataset: "cwced", field: "date", row: "date accuracy (same day)"},
	{dataset: "cwced", field: "author", row: "author accuracy"},
	{dataset: "scrapinghub-en", field: "body", row: "F1 (shingle, evaluate.py)"},
	{dataset: "trafilatura-zh", field: "title", row: "title exact"},
	{dataset: "trafilatura-zh", field: "body", counts: []string{"must-contain snippets found", "must-not-contain snippets absent"}},
	{dataset: "trafilatura-zh", field: "date", row: "date accuracy"},
	{dataset: "trafilatura-zh", field: "author", row: "author accuracy"},
	{dataset: "newspaper4k-zh", field: "title", row: "title exact"},
	{dataset: "newspaper4k-zh", field: "body", pagesOf: "newspaper4k-zh"},
	{dataset: "newspaper4k-zh", field: "date", row: "date accuracy"},
	{dataset: "htmltotext-zh", field: "body", pagesOf: "htmltotext-zh"},
	{dataset: "readability-zh", field: "body", pagesOf: "readability-zh"},
}

// Fields returns the per-field accuracy of every dataset measured.
func (r *Report) Fields() []FieldScore {
	var out []FieldScore
	for _, s := range fieldSources {
		if f, ok := r.field(s); ok {
			out = append(out, f)
		}
	}
	return out
}

func (r *Report) field(s fieldSource) (FieldScore, bool) {
	f := FieldScore{Dataset: s.dataset, Field: s.field}
	switch {
	case s.pagesOf != "":
		var sum float64
		for _, p := range r.Pages {
			if p.Dataset == s.pagesOf {
				sum += p.F1
				f.Pages++
			}
		}
		if f.Pages == 0 {
			return f, false
		}
		f.Value, f.From = sum/float64(f.Pages), "mean bigram F1 of the pages"
	case len(s.counts) > 0:
		k, n := 0, 0
		for _, m := range s.counts {
			row, ok := r.row(s.dataset, m)
			var of int
			if !ok || !row.Count {
				return f, false
			}
			if _, err := fmt.Sscanf(row.Note, "of %d", &of); err != nil || of <= 0 {
				return f, false
			}
			k += int(row.Value)
			n += of
			f.Pages = row.Pages
		}
		f.Value, f.From = float64(k)/float64(n), strings.Join(s.counts, " + ")
	default:
		row, ok := r.row(s.dataset, s.row)
		if !ok || math.IsNaN(row.Value) || row.Pages == 0 {
			return f, false
		}
		f.Value, f.Pages, f.From = row.Value, row.Pages, s.row
		if row.Count {
			f.Value /= float64(row.Pages)
		}
	}
	return f, true
}

func (r *Report) row(dataset, metric string) (Row, bool) {
	for _, row := range r.Rows {
		if row.Dataset == dataset && row.Metric == metric {
			return row, true
		}
	}
	return Row{}, false
}

// WriteFields prints the per-field benchmark: a line per dataset, a
// column per field (accuracy, or the body's mean F1, with the pages
// labelled for it); "-" where the dataset labels no such field.
func (r *Report) WriteFields(w io.Writer) error {
	fields := r.Fields()
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s", "dataset")
	for _, n := range fieldNames {
		fmt.Fprintf(&b, " %14s", n)
	}
	b.WriteString("\n")
	var sets []string
	for _, f := range fields {
		if len(sets) == 0 || sets[len(sets)-1] != f.Dataset {
			sets = append(sets, f.Dataset)
		}
	}
	for _, ds := range sets {
		fmt.Fprintf(&b, "%-16s", ds)
		for _, n := range fieldNames {
			cell := "-"
			for _, f := range fields {
				if f.Dataset == ds && f.Field == n {
					cell = fmt.Sprintf("%.4f (%d)", f.Value, f.Pages)
				}
			}
			fmt.Fprintf(&b, " %14s", cell)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Page kinds counted by Report.Kinds.
const (
	kindState       = "with the body from script state"
	kindDescription = "with the body from the description meta"
	kindTruncated   = "marked truncated (read-the-rest stub)"
)

// countKind counts the page's kind when it is one of the kind* ones.
func (r *Report) countKind(ds string, a *extract.Article) {
	var kinds []string
	switch a.Method {
	case extract.MethodState:
		kinds = append(kinds, kindState)
	case extract.MethodDescription:
		kinds = append(kinds, kindDescription)
	}
	if a.Truncated {
		kinds = append(kinds, kindTruncated)
	}
	for _, k := range kinds {
		if r.Kinds == nil {
			r.Kinds = map[string]map[string]int{}
		}
		if r.Kinds[ds] == nil {
			r.Kinds[ds] = map[string]int{}
		}
		r.Kinds[ds][k]++
	}
}

// addKinds adds a row per kind: the pages of that kind over all datasets,
// the datasets named in the note (0 on a set of whole article pages is
// the right figure for each).
func (r *Report) addKinds() {
	for _, k := range []string{kindState, kindDescription, kindTruncated} {
		n := 0
		var parts []string
		for _, ds := range slices.Sorted(maps.Keys(r.Kinds)) {
			if c := r.Kinds[ds][k]; c > 0 {
				n += c
				parts = append(parts, fmt.Sprintf("%s %d", ds, c))
			}
		}
		r.addCount("all", len(r.Timings), "pages "+k, n, strings.Join(parts, ", "))
	}
}
