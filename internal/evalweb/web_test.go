package evalweb

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
)

// TestSpecialRoutes reads the fail-once and slow articles from truth.jsonl
// and sums the outcomes of the special routes from the page records.
func TestSpecialRoutes(t *testing.T) {
	shared := t.TempDir()
	dev := filepath.Join(shared, "bench", "dev")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	truth := `{"url":"http://h/a1","behavior":{"fail_once":true}}
{"url":"http://h/a2","behavior":{"delay_ms":2000}}
{"url":"http://h/a3","behavior":{}}
`
	if err := os.WriteFile(filepath.Join(dev, "truth.jsonl"), []byte(truth), 0o644); err != nil {
		t.Fatal(err)
	}
	pages := map[string]storage.Page{
		"http://h/a1":          {Outcome: storage.OutcomeStored},
		"http://h/a2":          {Outcome: storage.OutcomeError, ErrKind: "timeout"},
		"http://h/big/1":       {Outcome: storage.OutcomeError, ErrKind: "too_large"},
		"http://h/download/1":  {Outcome: storage.OutcomeError, ErrKind: "too_large"},
		"http://h/calendar/3":  {Outcome: storage.OutcomeNotArticle},
		"http://h/calendar/12": {Outcome: storage.OutcomeNotArticle},
	}
	var r SpecialRoutes
	if err := specialRoutes(shared, pages, &r); err != nil {
		t.Fatal(err)
	}
	if r.FailOnce != 1 || r.FailOnceDecided != 1 || r.Slow != 1 || r.SlowDecided != 0 || r.Calendar != 12 ||
		r.Big["error too_large"] != 1 || r.Download["error too_large"] != 1 {
		t.Fatalf("special routes %+v", r)
	}
	var out bytes.Buffer
	r.write(&out)
	for _, want := range []string{"1 of 1 (retries", "decided: 0 of 1", "/big/): error too_large 1", "/calendar/12"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
