package quality

import (
	"slices"
	"strings"
	"testing"
)

// TestCheck: a figure under its floor, over its ceiling or not measured is
// reported; a figure at its floor is not.
func TestCheck(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	var figs figures
	figs.add("combined (default) / F1", 0.9461)
	figs.add("candidate pairs missed", 8)
	for _, tc := range []struct {
		name string
		fl   floor
		want string // "" : no problem
	}{
		{"at the floor", floor{Eval: "goldset", Figure: "combined (default) / F1", Min: f(0.9461)}, ""},
		{"under the floor", floor{Eval: "goldset", Figure: "combined (default) / F1", Min: f(0.947)}, "= 0.9461, below its floor 0.947"},
		{"at the ceiling", floor{Eval: "goldset", Figure: "candidate pairs missed", Max: f(8)}, ""},
		{"over the ceiling", floor{Eval: "goldset", Figure: "candidate pairs missed", Max: f(7)}, "= 8.0000, above its ceiling 7"},
		{"not measured", floor{Eval: "goldset", Figure: "combined / F1", Min: f(0.9)}, `floor on "combined / F1", which the evaluation does not measure`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check([]floor{tc.fl}, figs)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, tc.want) }):
				t.Errorf("problems %q, want one with %q", got, tc.want)
			}
		})
	}
}

// TestFloorsFile: floors.json parses, names known evaluations, and has one
// bound per entry; a malformed file is refused.
func TestFloorsFile(t *testing.T) {
	fl, err := readFloors(floorsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evaluations() {
		if len(floorsOf(fl, ev.name)) == 0 {
			t.Errorf("no floor for %s", ev.name)
		}
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown eval", `{"floors": [{"eval": "nope", "figure": "x", "min": 1}]}`, `unknown eval "nope"`},
		{"both bounds", `{"floors": [{"eval": "web", "figure": "x", "min": 1, "max": 2}]}`, "exactly one of min and max"},
		{"no bound", `{"floors": [{"eval": "web", "figure": "x"}]}`, "exactly one of min and max"},
		{"unknown key", `{"floors": [{"eval": "web", "figure": "x", "minimum": 1}]}`, `unknown field "minimum"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := t.TempDir() + "/floors.json"
			if err := writeFile(p, tc.doc); err != nil {
				t.Fatal(err)
			}
			if _, err := readFloors(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
