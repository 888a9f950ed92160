package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// Audit is what an independent reading of a store file finds, straight
// from its tables and without the Store's code paths: the crash evaluation
// checks a killed crawl's store with it (exactly-once decisions, no
// robots-disallowed fetch, empty frontier, runs closed).
type Audit struct {
	Integrity  string            // PRAGMA integrity_check ("ok")
	Articles   []string          // URL of every stored article, in id order
	Duplicates []string          // URL of every duplicate verdict, in commit order
	Pages      map[string]string // outcome (":err_kind" when set) of every page record, by URL
	Frontier   int               // frontier items left
	Runs       []string          // status of every run, in id order
}

// AuditFile reads the store file at path read-only (mode=ro) and returns
// its Audit. It never migrates or writes the file.
func AuditFile(ctx context.Context, path string) (*Audit, error) {
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer conn.Close()
	a := &Audit{Pages: map[string]string{}}
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&a.Integrity); err != nil {
		return nil, fmt.Errorf("integrity_check: %w", err)
	}
	for _, q := range []struct {
		table, query string
		urls         *[]string
	}{{"articles", "SELECT url FROM articles ORDER BY id", &a.Articles}, {"duplicates", "SELECT url FROM duplicates ORDER BY seq", &a.Duplicates}} {
		err := queryEach(ctx, conn, q.query, func(r *sql.Rows) error {
			var u string
			if err := r.Scan(&u); err != nil {
				return err
			}
			*q.urls = append(*q.urls, u)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", q.table, err)
		}
	}
	err = queryEach(ctx, conn, "SELECT url, outcome, err_kind FROM pages", func(r *sql.Rows) error {
		var u, outcome, kind string
		if err := r.Scan(&u, &outcome, &kind); err != nil {
			return err
		}
		if kind != "" {
			outcome += ":" + kind
		}
		a.Pages[u] = outcome
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read pages: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM frontier").Scan(&a.Frontier); err != nil {
		return nil, fmt.Errorf("count frontier: %w", err)
	}
	err = queryEach(ctx, conn, "SELECT status FROM runs ORDER BY id", func(r *sql.Rows) error {
		var s string
		if err := r.Scan(&s); err != nil {
			return err
		}
		a.Runs = append(a.Runs, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	return a, nil
}

// queryEach calls fn for every row of query.
func queryEach(ctx context.Context, conn *sql.DB, query string, fn func(*sql.Rows) error) error {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
