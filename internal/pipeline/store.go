package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// IsPostgres reports whether a storage setting (config storage:, --db)
// names a PostgreSQL database rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// ErrNotStoreURL is the error of a storage setting that is a URL no store
// has (http://…): a store is a SQLite file or a postgres:// URL.
var ErrNotStoreURL = errors.New("not a store URL")

// CheckStoreName returns an error wrapping ErrNotStoreURL when db is a URL
// (scheme://…) other than postgres:// or postgresql://.
func CheckStoreName(db string) error {
	scheme, _, ok := strings.Cut(db, "://")
	if !ok || IsPostgres(db) || scheme == "" || strings.ContainsAny(scheme, `/\. `) {
		return nil
	}
	name := db
	if u, err := url.Parse(db); err == nil {
		name = u.Redacted()
	}
	return fmt.Errorf("%s: %w: a store is a SQLite file or a postgres:// URL", name, ErrNotStoreURL)
}

// StoreName is db for messages: a URL without its password.
func StoreName(db string) string {
	if !IsPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://(unparsable url)"
	}
	return u.Redacted()
}

// OpenStore opens the store a storage setting names: a postgres:// or
// postgresql:// URL opens the shared PostgreSQL store (several crawls may
// run on it at once), anything else the SQLite file at that path.
func OpenStore(ctx context.Context, db string) (storage.Store, error) {
	if err := CheckStoreName(db); err != nil {
		return nil, err
	}
	if IsPostgres(db) {
		return postgres.Open(ctx, db)
	}
	return sqlite.Open(ctx, db)
}

// quickChecker is implemented by stores that can check their file for
// damage before a crawl writes to it (SQLite).
type quickChecker interface {
	QuickCheck(ctx context.Context) error
	QuickCheckSmall(ctx context.Context) error
	LastQuickCheck(ctx context.Context) (time.Time, error)
	RecordQuickCheck(ctx context.Context, t time.Time) error
}

// FullCheckOverdue is how old the last full check of a SQLite store
// (Check, the `check` command) may be before a crawl says it is overdue.
// The full check (PRAGMA quick_check) reads every page: 0.8 s at 100,000
// articles and 12 s at 1,000,000, more than a cron run with nothing new
// may cost, so a crawl never runs it: it checks the small tables it
// writes first (QuickCheckSmall), relies on SQLite reporting a damaged
// page it reads (ErrDamaged), and names the last full check. A daily
// `check` from cron keeps it current, with a day of slack.
const FullCheckOverdue = 48 * time.Hour

// checkStore checks a store for damage before a crawl writes to it: the
// small tables only, whatever the corpus size. It returns what it ran and
// when the last full check was, and whether that is overdue (none
// recorded, older than FullCheckOverdue, or recorded in the future).
func checkStore(ctx context.Context, qc quickChecker, now time.Time) (what string, overdue bool, err error) {
	last, err := qc.LastQuickCheck(ctx)
	if err != nil {
		return "", false, err
	}
	if err := qc.QuickCheckSmall(ctx); err != nil {
		return "", false, err
	}
	switch {
	case last.IsZero():
		return "small tables; no full check recorded: run `newscrawl check`", true, nil
	case now.Sub(last) >= FullCheckOverdue || last.After(now):
		return "small tables; last full check " + last.Format(time.RFC3339) + " is overdue: run `newscrawl check`", true, nil
	}
	return "small tables; last full check " + last.Format(time.RFC3339), false, nil
}

// runLiveness is implemented by stores written by several processes, which
// can tell a running run of a live process from one whose process died.
type runLiveness interface {
	RunAlive(ctx context.Context, id int64) (bool, error)
}

// Migrate copies the SQLite store at from (which must exist) into the
// empty PostgreSQL database to names, in one transaction (see
// postgres.Store.Import): articles, verdicts, runs and document
// frequencies keep their ids, clusters and order.
func Migrate(ctx context.Context, from, to string) (postgres.ImportStats, error) {
	if !IsPostgres(to) {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w: --to must be a postgres:// URL", storage.ErrInvalid)
	}
	if IsPostgres(from) {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w: --from must be a SQLite file", storage.ErrInvalid)
	}
	if err := sqliteExists(from); err != nil {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w", err)
	}
	src, err := sqlite.Open(ctx, from)
	if err != nil {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w", err)
	}
	defer src.Close()
	// No crawl may write the source while it is copied.
	release, err := src.Lock(ctx, false)
	if err != nil {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %s: %w", from, err)
	}
	defer release()
	dst, err := postgres.Open(ctx, to)
	if err != nil {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w", err)
	}
	defer dst.Close()
	st, err := dst.Import(ctx, src)
	if err != nil {
		return postgres.ImportStats{}, fmt.Errorf("migrate: %w", err)
	}
	if err := dst.Check(ctx); err != nil {
		return st, fmt.Errorf("migrate: the copy fails its check: %w", err)
	}
	return st, nil
}
