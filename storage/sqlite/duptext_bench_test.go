package sqlite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// BenchmarkDuplicateText measures what keeping duplicates' text costs in
// the store file: NEWSCRAWL_DUP_N duplicate rows (default 100,000) with
// the texts of ../shared/bench/dev/robust.jsonl (3.2 KB of Chinese news
// on average), 300-spot signatures and 100 prints each, written without
// text, with plain text and with packText; bytes/dup is the file size
// over the rows. Run:
//
//	go test -run '^$' -bench DuplicateText -benchtime 1x ./storage/sqlite
func BenchmarkDuplicateText(b *testing.B) {
	n := 100_000
	if v := os.Getenv("NEWSCRAWL_DUP_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("NEWSCRAWL_DUP_N=%q: want a positive integer", v)
		}
	}
	texts := robustTexts(b)
	for _, variant := range []string{"none", "plain", "packed"} {
		b.Run(variant, func(b *testing.B) {
			var size int64
			for b.Loop() {
				size = fillDuplicates(b, n, texts, variant)
			}
			b.ReportMetric(float64(size)/float64(n), "bytes/dup")
		})
	}
}

// robustTexts reads the texts of the dev robustness set.
func robustTexts(b *testing.B) []string {
	b.Helper()
	path := filepath.Join("..", "..", "..", "shared", "bench", "dev", "robust.jsonl")
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("no dev texts (%v): ../shared must be beside the repository", err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, rec.Text)
	}
	if err := sc.Err(); err != nil || len(texts) == 0 {
		b.Fatalf("%s: %d texts, %v", path, len(texts), err)
	}
	return texts
}

// fillDuplicates writes n duplicates of one article into a new store and
// returns the file's size after a checkpoint.
func fillDuplicates(b *testing.B, n int, texts []string, variant string) int64 {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "dups.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := fillArticles(ctx, s.db, 1); err != nil {
		b.Fatal(err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	page, err := tx.PrepareContext(ctx, `INSERT INTO pages(`+sqlcore.PageCols+`) VALUES (?, 'bench', 1, 'duplicate', 200, '', '', 0, 1)`)
	if err != nil {
		b.Fatal(err)
	}
	dup, err := tx.PrepareContext(ctx, `INSERT INTO duplicates(`+sqlcore.DuplicateCols+`)
		VALUES (?, 'bench', 1, 1, 'http://bench.example/a/1.html', 1, 3, 0.8, 0.9, ?, ?, 1, '新华社', '', 1, 7, ?, 'jaccard', '', 0, ?, 600)`)
	if err != nil {
		b.Fatal(err)
	}
	var pk textPacker
	rng := rand.New(rand.NewPCG(3, 4))
	sig, prints := make([]uint64, 300), make([]uint64, 100)
	for i := range n {
		for j := range sig {
			sig[j] = rng.Uint64()
		}
		for j := range prints {
			prints[j] = rng.Uint64()
		}
		var text any
		switch t := texts[i%len(texts)]; variant {
		case "none":
			text = ""
		case "plain":
			text = t
		default:
			text = pk.pack(t)
		}
		url := fmt.Sprintf("http://bench.example/d/%d.html", i)
		if _, err := page.ExecContext(ctx, url); err != nil {
			b.Fatal(err)
		}
		if _, err := dup.ExecContext(ctx, url, fmt.Sprintf("标题 %d", i), text, sqlcore.PackSignature(sig), sqlcore.PackSignature(prints)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
