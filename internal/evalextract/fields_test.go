package evalextract

import (
	"math"
	"strings"
	"testing"
)

func TestFields(t *testing.T) {
	r := &Report{}
	r.add("reprint-web", 10, "title exact", 0.9, "")
	r.add("reprint-web", 10, "mean bigram F1", 0.95, "")
	r.add("cwced", 8, "date accuracy (same day)", math.NaN(), "no labels")
	r.addCount("trafilatura-zh", 4, "title exact", 3, "of 4")
	r.addCount("trafilatura-zh", 4, "must-contain snippets found", 11, "of 12")
	r.addCount("trafilatura-zh", 4, "must-not-contain snippets absent", 12, "of 12")
	r.Pages = []PageScore{{Dataset: "readability-zh", F1: 1}, {Dataset: "readability-zh", F1: 0.5}, {Dataset: "cwced", F1: 0}}
	want := map[[2]string]float64{
		{"reprint-web", "title"}:    0.9,
		{"reprint-web", "body"}:     0.95,
		{"trafilatura-zh", "title"}: 0.75,
		{"trafilatura-zh", "body"}:  23.0 / 24,
		{"readability-zh", "body"}:  0.75,
	}
	got := map[[2]string]float64{}
	for _, f := range r.Fields() {
		got[[2]string{f.Dataset, f.Field}] = f.Value
	}
	for k, w := range want {
		t.Run(k[0]+"/"+k[1], func(t *testing.T) {
			if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9 {
				t.Errorf("%v = %v (found %v), want %v", k, g, ok, w)
			}
		})
	}
	if _, ok := got[[2]string{"cwced", "date"}]; ok {
		t.Error("an n/a row became a field figure")
	}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %d", got, len(want))
	}
	var b strings.Builder
	if err := r.WriteFields(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "0.7500 (4)") || !strings.Contains(b.String(), "来源") {
		t.Errorf("table:\n%s", b.String())
	}
}
