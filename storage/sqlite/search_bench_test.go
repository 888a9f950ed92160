package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

// BenchmarkTitleSearch measures serve's title search (SearchTitles, limit
// 500) on a store of NEWSCRAWL_VIEWS_ARTICLES articles (default 100,000)
// plus one duplicate in 20, written straight with SQL (Commit would take
// hours at 1 M). Texts come from NEWSCRAWL_SCALE_CORPUS (a JSONL file of
// bench/scale/gen.py, default bench/dev/truth.jsonl), cycled when the
// corpus is smaller than the store; each cycle takes its title from
// another part of the text, so titles stay distinct. With
// NEWSCRAWL_VIEWS_STORE the store is kept at that path and reused by the
// next run (and by report and export):
//
//	NEWSCRAWL_VIEWS_STORE=/tmp/views-1m/v1m.db NEWSCRAWL_VIEWS_ARTICLES=1000000 \
//	NEWSCRAWL_SCALE_CORPUS=/tmp/views-1m/corpus.jsonl \
//	go test -run '^$' -bench TitleSearch -benchtime 20x ./storage/sqlite
func BenchmarkTitleSearch(b *testing.B) {
	ctx := context.Background()
	n := 100_000
	if v := os.Getenv("NEWSCRAWL_VIEWS_ARTICLES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("NEWSCRAWL_VIEWS_ARTICLES=%q: want a positive integer", v)
		}
	}
	path := os.Getenv("NEWSCRAWL_VIEWS_STORE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "views.db")
	}
	_, statErr := os.Stat(path)
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if errors.Is(statErr, os.ErrNotExist) {
		corpus := os.Getenv("NEWSCRAWL_SCALE_CORPUS")
		if corpus == "" {
			corpus = devdatatest.Path(b, "bench", "dev", "truth.jsonl")
		}
		texts, err := readCorpusTexts(corpus)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := fillViews(ctx, s.db, n, texts); err != nil {
			b.Fatal(err)
		}
		b.Logf("filled %d articles from %d texts in %v", n, len(texts), time.Since(t0).Round(time.Second))
	}
	var stored int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM article_titles`).Scan(&stored); err != nil {
		b.Fatal(err)
	}
	var rare string
	if err := s.db.QueryRowContext(ctx, `SELECT substr(title, 6, 4) FROM articles WHERE id = ?`, stored*7/10).Scan(&rare); err != nil {
		b.Fatal(err)
	}
	storagetest.BenchTitleQueries(b, s, rare, stored)
}

// readCorpusTexts reads the texts of a JSONL corpus ({"text": ...} lines).
func readCorpusTexts(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len([]rune(rec.Text)) >= 200 {
			texts = append(texts, rec.Text)
		}
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no text of 200 characters", path)
	}
	return texts, sc.Err()
}

// viewsFillTx is how many articles fillViews writes per transaction.
const viewsFillTx = 50_000

// fillViews inserts n stored articles (pages, articles, the title index
// through its triggers) and a duplicate of every 20th, viewsFillTx to a
// transaction.
func fillViews(ctx context.Context, db *sql.DB, n int, texts []string) error {
	rng := rand.New(rand.NewPCG(1, 2))
	sig := make([]uint64, 100)
	dups := 0
	for lo := 1; lo <= n; lo += viewsFillTx {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for i := lo; i < lo+viewsFillTx && i <= n; i++ {
			text := []rune(texts[(i-1)%len(texts)])
			cycle := (i - 1) / len(texts)
			from := (cycle * 23) % (len(text) - 40)
			title := string(text[from : from+20])
			url := fmt.Sprintf("http://scale.example/a/%d.html", i)
			at := int64(i) * int64(time.Second)
			for j := range sig {
				sig[j] = rng.Uint64()
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO pages(`+sqlcore.PageCols+`) VALUES (?, 'scale', 1, 'stored', 200, '', '', 0, ?, NULL, '')`, url, at); err != nil {
				tx.Rollback() //nolint:errcheck // the insert's error is reported
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO articles(id, url, site, run_id, title, text, published_at, source,
				author, editor, fetched_at, content_hash, cluster, simhash, signature, sig_len)
				VALUES (?1, ?2, 'scale', 1, ?3, ?4, ?5, '新华社', '', '', ?5, ?6, ?1, ?7, ?8, 300)`,
				i, url, title, string(text), at, fmt.Sprintf("%064x", i), int64(rng.Uint64()), sqlcore.PackSignature(sig)); err != nil {
				tx.Rollback() //nolint:errcheck // the insert's error is reported
				return err
			}
			if i%20 != 0 {
				continue
			}
			dups++
			durl := fmt.Sprintf("http://mirror.example/a/%d.html", i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO pages(`+sqlcore.PageCols+`) VALUES (?, 'mirror', 1, 'duplicate', 200, '', '', 0, ?, NULL, '')`, durl, at); err != nil {
				tx.Rollback() //nolint:errcheck // the insert's error is reported
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard,
				title, text, published_at, source, author, fetched_at, simhash, signature)
				VALUES (?1, 'mirror', 1, ?2, ?3, ?2, 2, 0.9, ?4, '', ?5, '', '', ?5, 0, ?6)`,
				durl, i, url, "转载："+title, at, sqlcore.PackSignature(sig)); err != nil {
				tx.Rollback() //nolint:errcheck // the insert's error is reported
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'docs'`, n); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}
