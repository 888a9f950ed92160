package evalextract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/extract"
)

func TestDbgSHDump(t *testing.T) {
	if os.Getenv("SHDUMP") == "" {
		t.Skip()
	}
	dir := sharedOrSkip(t) + "/data/extraction/scrapinghub-article-extraction-benchmark-en"
	files, _ := filepath.Glob(dir + "/html/*.html.gz")
	ex, _ := extract.New(extract.Options{})
	out := map[string]map[string]string{}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".html.gz")
		b, _ := readGz(f)
		a, err := extractBytes(ex, &Report{}, "", b, "text/html; charset=utf-8")
		txt := ""
		if err == nil {
			txt = a.Text
		}
		out[id] = map[string]string{"articleBody": txt}
	}
	j, _ := json.Marshal(out)
	os.WriteFile(os.Getenv("SHDUMP"), j, 0o644)
}

func TestDbgWebDump(t *testing.T) {
	if os.Getenv("WEBDUMP") == "" {
		t.Skip()
	}
	pages, _ := LoadBench(sharedOrSkip(t)+"/bench/dev", false)
	ex, _ := extract.New(extract.Options{})
	f, _ := os.Create(os.Getenv("WEBDUMP"))
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, p := range pages {
		b, _ := os.ReadFile(p.File)
		a, err := extractBytes(ex, &Report{}, p.URL, b, p.ContentType)
		txt, title := "", ""
		if err == nil {
			txt, title = a.Text, a.Title
		}
		enc.Encode(map[string]any{"url": p.URL, "kept": true, "cluster": p.URL, "text": txt, "title": title})
	}
}
