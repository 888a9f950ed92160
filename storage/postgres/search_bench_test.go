package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

// BenchmarkTitleSearch measures SearchTitles (limit 500) on a fresh schema
// of NEWSCRAWL_VIEWS_ARTICLES articles (default 100,000) and a duplicate of
// every 20th, copied in with COPY (texts left empty: the search reads
// titles only). Titles are 20 characters of the texts of
// NEWSCRAWL_SCALE_CORPUS (bench/scale/gen.py JSONL; default
// bench/dev/truth.jsonl), from another part of the text on each cycle
// through a corpus smaller than the store, as the SQLite benchmark does:
//
//	NEWSCRAWL_VIEWS_ARTICLES=1000000 NEWSCRAWL_SCALE_CORPUS=/tmp/views-1m/corpus.jsonl \
//	go test -run '^$' -bench TitleSearch -benchtime 20x ./storage/postgres
func BenchmarkTitleSearch(b *testing.B) {
	serverURL(b)
	ctx := context.Background()
	n := 100_000
	if v := os.Getenv("NEWSCRAWL_VIEWS_ARTICLES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("NEWSCRAWL_VIEWS_ARTICLES=%q: want a positive integer", v)
		}
	}
	corpus := os.Getenv("NEWSCRAWL_SCALE_CORPUS")
	if corpus == "" {
		corpus = devdatatest.Path(b, "bench", "dev", "truth.jsonl")
	}
	texts, err := corpusTexts(corpus)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := freshSchema(b)
	s := openStore(b, u)
	conn := adminConn(b, u)
	t0 := time.Now()
	titles := make([]string, n+1)
	arts := make([][]any, 0, n)
	var dups [][]any
	for i := 1; i <= n; i++ {
		text := texts[(i-1)%len(texts)]
		from := ((i - 1) / len(texts) * 23) % (len(text) - 40)
		titles[i] = string(text[from : from+20])
		url := fmt.Sprintf("http://scale.example/a/%d.html", i)
		arts = append(arts, []any{int64(i), url, "scale", int64(1), titles[i], "", "", "", "", "h", int64(i), int64(0), []byte{}, int32(0)})
		if i%20 == 0 {
			dups = append(dups, []any{fmt.Sprintf("http://mirror.example/a/%d.html", i), "mirror", int64(1), int64(i), url, int64(i),
				int32(2), 0.9, "转载：" + titles[i], "", "", "", int64(0), []byte{}})
		}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"articles"}, []string{"id", "url", "site", "run_id", "title", "text", "source",
		"author", "editor", "content_hash", "cluster", "simhash", "signature", "sig_len"}, pgx.CopyFromRows(arts)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"duplicates"}, []string{"url", "site", "run_id", "dup_of", "dup_of_url", "cluster",
		"distance", "jaccard", "title", "text", "source", "author", "simhash", "signature"}, pgx.CopyFromRows(dups)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE articles; ANALYZE duplicates`); err != nil {
		b.Fatal(err)
	}
	b.Logf("copied %d articles and %d duplicates (title index maintained) in %v", n, len(dups), time.Since(t0).Round(time.Second))
	rare := string([]rune(titles[n*7/10])[5:9])
	storagetest.BenchTitleQueries(b, s, rare, n)
}

// corpusTexts reads the texts of a JSONL corpus as runes, those of 200
// characters or more.
func corpusTexts(path string) ([][]rune, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var texts [][]rune
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if r := []rune(rec.Text); len(r) >= 200 {
			texts = append(texts, r)
		}
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no text of 200 characters", path)
	}
	return texts, sc.Err()
}
