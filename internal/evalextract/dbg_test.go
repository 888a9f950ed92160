package evalextract

import (
	"os"
	"testing"

	"github.com/newsdedup/newscrawl/extract"
)

func TestDbgPage(t *testing.T) {
	want := os.Getenv("PAGE")
	if want == "" {
		t.Skip()
	}
	shared := sharedOrSkip(t)
	pages, _ := LoadBench(shared+"/bench/dev", true)
	ex, _ := extract.New(extract.Options{})
	for _, p := range pages {
		if p.Site+p.Path != want {
			continue
		}
		body, _ := os.ReadFile(p.File)
		r := &Report{}
		a, err := extractBytes(ex, r, p.URL, body, p.ContentType)
		t.Logf("file %s err %v", p.File, err)
		if a != nil {
			t.Logf("title %q time %v src %q auth %q ed %q method %s\n---TEXT---\n%s", a.Title, a.PublishedAt, a.Source, a.Author, a.Editor, a.Method, a.Text)
		}
		t.Logf("\n---TRUTH--- %s %v\n%s", p.Truth.Template, p.Truth.RelatedBlock, p.Truth.Text)
		t.Logf("F1 %.3f", BigramF1(a.Text, p.Truth.Text))
	}
}
