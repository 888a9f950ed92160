package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/fixture/portals"
)

// TestRepresentativeReplica crawls the replica web so that the original
// arrives after its reprint: first Sohu alone (its copy of Sina's story
// r01, 来源 新浪新闻, is stored), then Sina (its own copy becomes the
// reprint's duplicate). The export still names Sina's copy the cluster's
// representative (its site publishes under the 来源 of the cluster, and it
// is also the earlier published: export.TestRepresentative separates the
// two rules), with its own text, and lists both copies; the stored
// reprint is not the representative. Nothing is lost: both records carry
// their text.
func TestRepresentativeReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary and crawls two sites")
	}
	rep, err := portals.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	siteFile := filepath.Join(dir, "sites.yaml")
	yml := string(rep.SiteYAML(db, portals.YAMLOptions{}))
	const sinaEntry = "  - name: sina\n"
	if !strings.Contains(yml, sinaEntry) {
		t.Fatalf("no sina entry in the replica's site file:\n%s", yml)
	}
	yml = strings.Replace(yml, sinaEntry, sinaEntry+"    source_names: [新浪新闻, 新浪新闻综合]\n", 1)
	if err := os.WriteFile(siteFile, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, site := range []string{"sohu", "sina"} {
		var out, errb bytes.Buffer
		if code := run([]string{"crawl", "--site", siteFile, "--only", site, "--progress", "0"}, &out, &errb); code != exitOK {
			t.Fatalf("crawl %s: exit %d\n%s\n%s", site, code, out.String(), errb.String())
		}
	}
	exported := filepath.Join(dir, "export.jsonl")
	var out, errb bytes.Buffer
	if code := run([]string{"export", "--db", db, "--out", exported}, &out, &errb); code != exitOK {
		t.Fatalf("export: exit %d\n%s", code, errb.String())
	}
	b, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	type copyRec struct{ Site, URL, Source, Verdict string }
	type record struct {
		URL, Site, Text string
		Kept            bool
		Cluster         int64
		Representative  *bool   `json:"representative"`
		OriginalSource  *string `json:"original_source"`
		Copies          []copyRec
	}
	var sina, sohu *record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Site != "sina" && r.Site != "sohu" || r.Cluster == 0 {
			continue
		}
		for _, a := range rep.Articles() {
			if a.Story == "r01" && a.Site == r.Site && canonical(t, a.URL) == r.URL {
				rc := r
				if r.Site == "sina" {
					sina = &rc
				} else {
					sohu = &rc
				}
			}
		}
	}
	if sina == nil || sohu == nil {
		t.Fatalf("story r01 not exported from both sites: sina %v, sohu %v", sina, sohu)
	}
	if !sohu.Kept || sina.Kept || sina.Cluster != sohu.Cluster {
		t.Fatalf("want Sohu's reprint stored and Sina's original its duplicate: sina %+v, sohu %+v", sina, sohu)
	}
	if sina.Representative == nil || !*sina.Representative || sohu.Representative == nil || *sohu.Representative {
		t.Errorf("representative: sina %v, sohu %v; want Sina's copy", sina.Representative, sohu.Representative)
	}
	if sina.OriginalSource == nil || *sina.OriginalSource != "新浪新闻" {
		t.Errorf("original_source %v, want 新浪新闻", sina.OriginalSource)
	}
	if len(sina.Copies) != 2 || sina.Copies[0].URL != sina.URL || sina.Copies[1].URL != sohu.URL || sohu.Copies != nil {
		t.Errorf("copies on Sina's record %+v, on Sohu's %+v", sina.Copies, sohu.Copies)
	}
	if sina.Text == "" || sohu.Text == "" {
		t.Errorf("a copy's text is missing: sina %d, sohu %d bytes", len(sina.Text), len(sohu.Text))
	}
}
