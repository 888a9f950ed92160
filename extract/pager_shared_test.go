package extract_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/internal/evalextract"
)

// TestFindPagerSinglePages: the article pages of the reprint-web dev split
// and the pages of CWCED's dev sample whose URL it gives are pages of their
// own (none has a pager; one CWCED page is a book chapter whose 目录/下一页
// navigation links the next chapter): the pager rule finds no pager on any
// of them.
func TestFindPagerSinglePages(t *testing.T) {
	type page struct{ url, file string }
	bench, err := evalextract.LoadBench(devdatatest.Path(t, "bench", "dev"), false)
	if err != nil {
		t.Fatal(err)
	}
	cwced := devdatatest.Path(t, "data", "extraction", "cwced-dev")
	f, err := os.Open(filepath.Join(cwced, "pages.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cw []page
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) >= 4 && cols[0] != "file" {
			cw = append(cw, page{cols[3], filepath.Join(cwced, "original", cols[0])})
		}
	}
	if len(bench) < 400 || len(cw) < 50 {
		t.Fatalf("%d dev pages, %d CWCED pages: the data is incomplete", len(bench), len(cw))
	}
	multi, skipped := 0, 0
	check := func(url string, body []byte) {
		d, err := decode.Decode(body, "", "")
		if err != nil {
			t.Fatal(err)
		}
		pg, err := extract.FindPager(url, d.Body, "")
		if err != nil {
			skipped++ // CWCED gives some pages no URL, or one without a scheme
			return
		}
		if pg.Multi() {
			multi++
			t.Errorf("%s: pager found, pages %q", url, pg.Pages)
		}
	}
	for _, p := range bench {
		b, err := os.ReadFile(p.File)
		if err != nil {
			t.Fatal(err)
		}
		u := p.URL
		if u == "" { // truth lines without a URL: the page's path on its site's host
			u = "http://" + p.Site + ".example" + p.Path
		}
		check(u, b)
	}
	for _, p := range cw {
		b, err := os.ReadFile(p.file)
		if err != nil {
			t.Fatal(err)
		}
		check(p.url, b)
	}
	n := len(bench) + len(cw) - skipped
	if n < 450 {
		t.Fatalf("only %d pages with a URL", n)
	}
	t.Logf("%d of %d single pages read as multi-page (%d without a URL skipped)", multi, n, skipped)
}
