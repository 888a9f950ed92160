package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// BenchmarkStoreCheck measures the damage checks on a large store: PRAGMA
// quick_check (what crawl and export run before using a store) and PRAGMA
// integrity_check (which also compares every index with its table), and
// QuickCheckSmall (the runs and meta tables only). The
// store is filled with NEWSCRAWL_CHECK_ARTICLES articles (default 100,000)
// of ~1 KB Chinese text and a 100-spot signature, written straight with SQL
// in one transaction (Commit would take minutes). Run for 1 M articles:
//
//	NEWSCRAWL_CHECK_ARTICLES=1000000 go test -run '^$' -bench StoreCheck -benchtime 1x ./storage/sqlite
func BenchmarkStoreCheck(b *testing.B) {
	n := 100_000
	if v := os.Getenv("NEWSCRAWL_CHECK_ARTICLES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("NEWSCRAWL_CHECK_ARTICLES=%q: want a positive integer", v)
		}
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "big.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	if err := fillArticles(ctx, s.db, n); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d articles in %v: %.0f MB", n, time.Since(t0).Round(time.Millisecond), float64(fi.Size())/1e6)
	for _, pragma := range []string{"quick_check", "integrity_check"} {
		b.Run(pragma, func(b *testing.B) {
			for b.Loop() {
				var res string
				if err := s.db.QueryRowContext(ctx, "PRAGMA "+pragma+"(1)").Scan(&res); err != nil || res != "ok" {
					b.Fatalf("%s: %q %v", pragma, res, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/check")
			b.ReportMetric(float64(fi.Size())/1e6, "MB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/article")
		})
	}
	// What a crawl runs between its daily full checks (QuickCheckSmall).
	b.Run("small_tables", func(b *testing.B) {
		for b.Loop() {
			if err := s.QuickCheckSmall(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/check")
	})
}

// fillArticles inserts n stored pages and articles in one transaction.
func fillArticles(ctx context.Context, db *sql.DB, n int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	page, err := tx.PrepareContext(ctx, `INSERT INTO pages(`+sqlcore.PageCols+`) VALUES (?, 'bench', 1, 'stored', 200, '', '', 0, ?)`)
	if err != nil {
		return err
	}
	art, err := tx.PrepareContext(ctx, `INSERT INTO articles(id, url, site, run_id, title, text, published_at, source,
		author, editor, fetched_at, content_hash, cluster, simhash, signature, sig_len)
		VALUES (?1, ?2, 'bench', 1, ?3, ?4, ?5, '新华社', '', '', ?5, ?6, ?1, ?7, ?8, 300)`)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	runes := []rune("新华社北京月日电记者从国家统计局获悉今年前五个月全国规模以上工业增加值同比增长中国经济社会发展")
	var text strings.Builder
	sig := make([]uint64, 100)
	for i := 1; i <= n; i++ {
		text.Reset()
		for text.Len() < 1024 {
			text.WriteRune(runes[rng.IntN(len(runes))])
		}
		for j := range sig {
			sig[j] = rng.Uint64()
		}
		url := fmt.Sprintf("http://bench.example/a/%d.html", i)
		at := int64(i) * int64(time.Second)
		if _, err := page.ExecContext(ctx, url, at); err != nil {
			return err
		}
		if _, err := art.ExecContext(ctx, i, url, fmt.Sprintf("标题 %d", i), text.String(), at,
			fmt.Sprintf("%064x", i), int64(rng.Uint64()), sqlcore.PackSignature(sig)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'docs'`, n); err != nil {
		return err
	}
	return tx.Commit()
}
