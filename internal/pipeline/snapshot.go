package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
)

// The persisted index (docs/SCALE.md). Rebuilding the dedup index from the store
// reads every stored signature and builds every posting list: linear in
// the corpus, ~7 s of CPU at 100,000 articles. Instead, a run ends by
// writing the index (dedup.Snapshotter) with the store position it
// reflects (storage.Cursor), and the next run loads that file and replays
// only the store's commits after the cursor (articles, duplicates, cluster
// merges). Whenever the snapshot cannot be trusted the index is rebuilt
// from the store as before, and the reason is reported.
//
// Where: beside a SQLite store (PATH.index); for a PostgreSQL store, a
// per-user cache file keyed by the store URL (without its password) under
// os.UserCacheDir()/newscrawl, since the store has no local directory and
// every process keeps its own index.

// changeFeed is what the snapshot needs of a store: its commit position
// and the commits after a position (storage.Cursor).
type changeFeed interface {
	Head(ctx context.Context) (storage.Cursor, error)
	Changes(ctx context.Context, after storage.Cursor, fn func(storage.Change) error) (storage.Cursor, error)
}

// snapshotMagic starts an index file; snapshotHeader follows as one JSON
// line, then the index (dedup.Snapshotter), then nothing.
// The header line is padded with spaces to a multiple of
// dedup.SnapshotAlign, so that the index after it can be mapped in place
// (dedup.Mapper).
const snapshotMagic = "newscrawl index snapshot 2\n"

// snapshotHeader says what an index file reflects.
type snapshotHeader struct {
	Store   string         `json:"store"`   // StoreName of the store it was written for
	Options string         `json:"options"` // indexOptions of the engine
	Cursor  storage.Cursor `json:"cursor"`  // the store's commits it holds
	// ArticleURL is the URL of article Cursor.Article: a different store
	// at the same path (or one restored from a backup and written since)
	// has another article there.
	ArticleURL string    `json:"article_url"`
	Entries    int       `json:"entries"`
	Written    time.Time `json:"written"`
	// ID names this base snapshot: the delta records appended after it
	// (delta.go) name it, so records of a replaced base are not applied.
	ID string `json:"id"`
	// size is the file's length (not stored).
	size int64
}

// IndexSnapshotPath is where the index snapshot of the store db lives (see
// above).
func IndexSnapshotPath(db string) (string, error) {
	if !IsPostgres(db) {
		return db + ".index", nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index snapshot of %s: %w", StoreName(db), err)
	}
	sum := sha256.Sum256([]byte(StoreName(db)))
	return filepath.Join(dir, "newscrawl", "index-"+hex.EncodeToString(sum[:8])), nil
}

// indexOptions is the part of the dedup config a snapshot depends on: the
// index thresholds (also checked by the index itself), whether duplicates
// are indexed, the candidate stage when it is the exhaustive one, and the
// window.
func indexOptions(o dedup.Options, index string, window time.Duration) string {
	return fmt.Sprintf("jaccard=%g containment=%g centres_only=%t exhaustive=%t keyword_exact=%t mode=%s window=%s",
		o.Jaccard, o.Containment, o.CentresOnly, index == ExhaustiveIndex, o.Research.KeywordExact, o.Research.Mode, window)
}

// IndexLoad says how NewEngine filled the index.
type IndexLoad struct {
	Entries  int    // entries indexed
	Snapshot int    // of which loaded from the snapshot (0: rebuilt)
	Tail     int    // commits replayed after the snapshot's cursor
	Rebuilt  bool   // the index was rebuilt from the store
	Reason   string // why it was rebuilt (empty: no snapshot was configured)
	// Cursor is the store position the index reflects (zero when the
	// store has no change feed).
	Cursor storage.Cursor
	// Path is the snapshot file ("" when none).
	Path string
	// The base snapshot and its deltas (delta.go): the base's ID and
	// size, the delta records applied, the bytes of the delta file they
	// fill (what follows is ignored and cut by the next save), why the
	// rest was ignored, and the store position the deltas brought the
	// index to (the next delta starts there).
	BaseID      string
	BaseBytes   int64
	Deltas      int
	DeltaBytes  int64
	DeltaNote   string
	DeltaCursor storage.Cursor
	// deltaURL is the URL of the article at DeltaCursor.
	deltaURL string
	// Redis: the index is shared in Redis (dedup.index: redis); nothing
	// was loaded into the process.
	Redis bool
	// Spill says why the index keeps the cold data of the entries the
	// run adds in memory instead of files ("" when it does not).
	Spill string
}

// String is the start-up line's account of the index.
func (l IndexLoad) String() string {
	if l.Spill != "" {
		l2 := l
		l2.Spill = ""
		return l2.String() + "; " + l.Spill
	}
	if l.Redis {
		return fmt.Sprintf("index: shared in Redis, %d entries", l.Entries)
	}
	if !l.Rebuilt {
		d := ""
		if l.Deltas > 0 || l.DeltaNote != "" {
			d = fmt.Sprintf(" (%d deltas", l.Deltas)
			if l.DeltaNote != "" {
				d += "; " + l.DeltaNote
			}
			d += ")"
		}
		return fmt.Sprintf("index: snapshot %d entries%s + tail %d", l.Snapshot, d, l.Tail)
	}
	if l.Reason == "" {
		return fmt.Sprintf("index: rebuilt, %d entries", l.Entries)
	}
	return fmt.Sprintf("index: rebuilt, %d entries (%s)", l.Entries, l.Reason)
}

// EngineConfig configures NewEngine.
type EngineConfig struct {
	// Snapshot is the index snapshot file to load (and later save, see
	// SaveIndex); "" rebuilds from the store.
	Snapshot string
	Now      time.Time
}

// NewEngine builds the near-duplicate engine from the config and fills
// its index: from the snapshot plus the store's commits after it when
// ec.Snapshot names a usable one, else rebuilt from the store (every
// stored article and duplicate within the dedup window). Document
// frequencies are loaded from the store when the options use them.
func NewEngine(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, ec EngineConfig) (*dedup.Engine, IndexLoad, error) {
	opts, spill, err := runEngineOptions(cfg)
	if err != nil {
		return nil, IndexLoad{}, err
	}
	var since time.Time
	if w := cfg.Dedup.Window.D(); w > 0 {
		since = ec.Now.Add(-w)
	}
	load := IndexLoad{Path: ec.Snapshot}
	feed, hasFeed := store.(changeFeed)
	var eng *dedup.Engine
	if ec.Snapshot != "" && hasFeed {
		eng, load, err = loadSnapshot(ctx, cfg, seg, store, feed, ec.Snapshot, since)
		if err != nil {
			return nil, load, err
		}
	} else if ec.Snapshot != "" {
		load.Reason = fmt.Sprintf("%T has no change feed", store)
	}
	if eng == nil {
		if eng, err = dedup.New(seg, opts); err != nil {
			return nil, load, err
		}
		load.Rebuilt = true
		if hasFeed {
			// The head is read before the rows: a commit between the two
			// would be replayed again (idempotent), never missed.
			if load.Cursor, err = feed.Head(ctx); err != nil {
				return nil, load, fmt.Errorf("rebuild index: %w", err)
			}
		}
		if load.Entries, err = rebuild(ctx, eng, store, since); err != nil {
			return nil, load, err
		}
	}
	// A snapshot holds entries that have left the window since it was
	// written: the index skips them (dedup.Windowed).
	eng.SetWindow(since)
	if eng.Options().Research.NeedsDocFreqs() {
		df := map[string]int{}
		docs, err := store.DocFreqs(ctx, func(term string, n int) error { df[term] = n; return nil })
		if err != nil {
			return nil, load, fmt.Errorf("load document frequencies: %w", err)
		}
		eng.SetDocFreqs(docs, df)
	}
	load.Spill = spill.String()
	return eng, load, nil
}

// rebuild indexes every stored article and duplicate within the window.
func rebuild(ctx context.Context, eng *dedup.Engine, store storage.Store, since time.Time) (int, error) {
	n := 0
	err := store.Fingerprints(ctx, since, func(a storage.Article) error {
		n++
		return eng.Restore(ctx, articleEntry(a))
	})
	if err != nil {
		return 0, fmt.Errorf("rebuild index: %w", err)
	}
	// Duplicates are cluster members (single-link): index them too.
	if !eng.Options().CentresOnly {
		err = store.DuplicateFingerprints(ctx, since, func(d storage.Duplicate) error {
			n++
			return eng.Restore(ctx, memberEntry(d))
		})
		if err != nil {
			return 0, fmt.Errorf("rebuild index: %w", err)
		}
	}
	return n, nil
}

// snapshotStoreName is the store a snapshot header names: a SQLite file
// by its absolute, cleaned path, so that `data/news.db`, `./data/news.db`
// and a cron job's absolute path name one store; a PostgreSQL URL
// without its password.
func snapshotStoreName(db string) string {
	if IsPostgres(db) {
		return StoreName(db)
	}
	if abs, err := filepath.Abs(db); err == nil {
		return abs
	}
	return filepath.Clean(db)
}

// errUnusable marks why a snapshot is not used (the index is rebuilt).
type errUnusable struct{ reason string }

func (e errUnusable) Error() string { return e.reason }

func unusable(format string, a ...any) error { return errUnusable{fmt.Sprintf(format, a...)} }

// loadSnapshot returns the engine loaded from the snapshot at path plus
// the store's tail, or a nil engine and the reason it was not usable. Its
// error is the store's (reading the tail), which fails the start-up.
func loadSnapshot(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, feed changeFeed, path string, since time.Time) (*dedup.Engine, IndexLoad, error) {
	load := IndexLoad{Path: path}
	eng, hdr, err := readSnapshotFile(ctx, cfg, seg, store, feed, path, false)
	if err == nil {
		load.BaseID, load.BaseBytes = hdr.ID, hdr.size
		err = applyDeltas(ctx, eng, store, feed, path, hdr, &load)
	}
	var un errUnusable
	switch {
	case errors.As(err, &un):
		load = IndexLoad{Path: path, Reason: "snapshot not used: " + un.reason}
		return nil, load, nil
	case err != nil:
		return nil, load, err
	}
	// The next delta holds what follows: the store's tail and the run.
	if err := eng.MarkDelta(); err != nil && !errors.Is(err, dedup.ErrNoSnapshot) {
		return nil, load, err
	}
	load.Snapshot, load.Cursor = eng.Len(), load.DeltaCursor
	members := !eng.Options().CentresOnly
	load.Cursor, err = feed.Changes(ctx, load.DeltaCursor, func(c storage.Change) error {
		load.Tail++
		switch {
		case c.Article != nil:
			if inWindow(c.Article.FetchedAt, c.Article.PublishedAt, since) {
				return eng.Restore(ctx, articleEntry(*c.Article))
			}
		case c.Duplicate != nil:
			if members && inWindow(c.Duplicate.FetchedAt, c.Duplicate.PublishedAt, since) {
				return eng.Restore(ctx, memberEntry(*c.Duplicate))
			}
		case c.Merge != nil:
			return eng.MergeClusters(ctx, uint64(c.Merge.Into), []uint64{uint64(c.Merge.From)})
		}
		return nil
	})
	if err != nil {
		return nil, load, fmt.Errorf("index snapshot: replay the store's commits after it: %w", err)
	}
	load.Entries = eng.Len()
	return eng, load, nil
}

// inWindow is the store's Fingerprints filter: fetched or published at or
// after since (zero: everything).
func inWindow(fetched, published, since time.Time) bool {
	return since.IsZero() || !fetched.Before(since) || !published.Before(since)
}

// readSnapshotFile opens, checks and maps the base snapshot (verify: and
// reads all of it to check its checksum and arrays, as `check` does); an
// errUnusable says why it cannot be used.
func readSnapshotFile(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, feed changeFeed, path string, verify bool) (*dedup.Engine, snapshotHeader, error) {
	var hdr snapshotHeader
	opts, _, err := runEngineOptions(cfg) // a read (check) needs no note where the cold data went
	if err != nil {
		return nil, hdr, err
	}
	eng, err := dedup.New(seg, opts)
	if err != nil {
		return nil, hdr, err
	}
	if cfg.Dedup.Window.D() > 0 && !eng.Windowed() {
		// Its entries would never leave the window.
		return nil, hdr, unusable("dedup.window is set and the %s index keeps no entry times", cfg.Dedup.Index)
	}
	want := indexOptions(eng.Options(), cfg.Dedup.Index, cfg.Dedup.Window.D())
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, hdr, unusable("no snapshot at %s", path)
	} else if err != nil {
		return nil, hdr, unusable("%v", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != snapshotMagic {
		return nil, hdr, unusable("%s is not an index snapshot", path)
	}
	line, err := r.ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &hdr) != nil {
		return nil, hdr, unusable("%s: unreadable header", path)
	}
	if err := checkHeader(ctx, hdr, cfg, want, store, feed); err != nil {
		return nil, hdr, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, hdr, unusable("%v", err)
	}
	// The index is used in place from the file; its length makes bytes
	// after it an error.
	off := int64(len(snapshotMagic) + len(line))
	hdr.size = fi.Size()
	if err := eng.MapSnapshot(f, off, fi.Size()-off, verify); err != nil {
		return nil, hdr, unusable("%s: %v", path, err)
	}
	return eng, hdr, nil
}

// checkHeader checks that a snapshot was written for this store, these
// options and a position the store has reached.
func checkHeader(ctx context.Context, hdr snapshotHeader, cfg *config.Config, want string, store storage.Store, feed changeFeed) error {
	if hdr.Store != snapshotStoreName(cfg.Storage) {
		return unusable("written for store %s", hdr.Store)
	}
	if hdr.Options != want {
		return unusable("written with other dedup options (%s; now %s)", hdr.Options, want)
	}
	head, err := feed.Head(ctx)
	if err != nil {
		return err
	}
	if !hdr.Cursor.Before(head) {
		return unusable("it is ahead of the store (snapshot at %+v, store at %+v: was the store restored from a backup?)", hdr.Cursor, head)
	}
	if hdr.Cursor.Article > 0 {
		a, err := store.Article(ctx, hdr.Cursor.Article)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && a.URL != hdr.ArticleURL) {
			return unusable("the store's article %d is not the one the snapshot saw (another store, or one restored from a backup)", hdr.Cursor.Article)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// articleURL is the URL of the article at cursor ("" when none).
func articleURL(ctx context.Context, store storage.Store, cursor storage.Cursor) (string, error) {
	if cursor.Article <= 0 {
		return "", nil
	}
	a, err := store.Article(ctx, cursor.Article)
	if err != nil {
		return "", err
	}
	return a.URL, nil
}

// newBaseID returns a random name for a base snapshot.
func newBaseID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// SaveIndex writes the engine's index and the store position it reflects
// (cursor) to path, atomically: a crash mid-write leaves the previous
// snapshot. The caller must know that the index holds exactly the store's
// commits up to cursor (no decision in flight, no commit undone since).
// The new base holds what the delta file held: the file is removed (its
// records name the old base, and a crash before the removal leaves them
// ignored).
func SaveIndex(ctx context.Context, cfg *config.Config, eng *dedup.Engine, store storage.Store, path string, cursor storage.Cursor) (int64, error) {
	return saveIndex(ctx, cfg, eng, store, path, cursor, func(string) {})
}

// saveIndex is SaveIndex; step is called before each step with its name
// (the crash tests stop the process there).
func saveIndex(ctx context.Context, cfg *config.Config, eng *dedup.Engine, store storage.Store, path string, cursor storage.Cursor, step func(string)) (int64, error) {
	id, err := newBaseID()
	if err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	hdr := snapshotHeader{Store: snapshotStoreName(cfg.Storage), Options: indexOptions(eng.Options(), cfg.Dedup.Index, cfg.Dedup.Window.D()),
		Cursor: cursor, Entries: eng.Len(), Written: time.Now().UTC(), ID: id}
	if hdr.ArticleURL, err = articleURL(ctx, store, cursor); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	line, err := json.Marshal(hdr)
	if err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	// Spaces up to the alignment of the index (JSON allows them).
	pad := (dedup.SnapshotAlign - (len(snapshotMagic)+len(line)+1)%dedup.SnapshotAlign) % dedup.SnapshotAlign
	line = append(line, bytes.Repeat([]byte{' '}, pad)...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(0o644))
	if err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	defer f.Cleanup() //nolint:errcheck // after CloseAtomicallyReplace, a no-op
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(snapshotMagic)
	w.Write(append(line, '\n'))
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	step("index")
	if err := eng.WriteSnapshot(w); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	step("rename")
	if err := f.CloseAtomicallyReplace(); err != nil {
		return 0, fmt.Errorf("save index: %w", err)
	}
	step("remove-delta")
	if err := os.Remove(deltaPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("save index: remove the old deltas: %w", err)
	}
	return size, nil
}

// indexRun is a run's engine, how its index was filled, and the shared
// decisions of a fleet store.
type indexRun struct {
	eng    *dedup.Engine
	load   IndexLoad
	shared *sharedDecisions
	saved  IndexSave
	// since is the start of the run's dedup window (zero: none).
	since time.Time
}

// IndexSave is what the end of a run wrote.
type IndexSave struct {
	Path    string
	Bytes   int64
	Entries int
	Elapsed time.Duration
	Skipped string // why nothing was written ("" when it was)
	Delta   bool   // a delta record was appended (not a new base)
	// Expired is the entries a new base dropped as outside the dedup
	// window.
	Expired int
}

// startIndex builds the run's engine from its index snapshot (when the
// store has one, see IndexSnapshotPath) or the store.
func startIndex(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, now time.Time, log *slog.Logger) (*indexRun, error) {
	ec := EngineConfig{Now: now}
	path, err := IndexSnapshotPath(cfg.Storage)
	if err != nil && log != nil {
		log.Warn("no index snapshot", "err", err)
	}
	ec.Snapshot = path
	eng, load, shared, err := newEngineShared(ctx, func() (*dedup.Engine, IndexLoad, error) {
		return NewEngine(ctx, cfg, seg, store, ec)
	}, store)
	if err != nil {
		return nil, err
	}
	if load.Rebuilt && load.Reason != "" && log != nil {
		log.Info("index rebuilt from the store", "reason", load.Reason)
	}
	ir := &indexRun{eng: eng, load: load, shared: shared}
	if w := cfg.Dedup.Window.D(); w > 0 {
		ir.since = now.Add(-w)
	}
	return ir, nil
}

// save writes the index snapshot at the end of a run, unless the index
// did not change since it was loaded; a failure is reported, not fatal
// (the next run replays a longer tail or rebuilds).
func (ir *indexRun) save(ctx context.Context, cfg *config.Config, store storage.Store, status io.Writer, log *slog.Logger) {
	ir.saved = IndexSave{Path: ir.load.Path}
	feed, ok := store.(changeFeed)
	switch {
	case ir.load.Path == "":
		ir.saved.Skipped = "no snapshot path"
	case !ok:
		ir.saved.Skipped = "the store has no change feed"
	case cfg.Dedup.Window.D() > 0 && !ir.eng.Windowed():
		ir.saved.Skipped = "dedup.window is set and the index keeps no entry times"
	}
	if ir.saved.Skipped != "" {
		return
	}
	var cursor storage.Cursor
	if ir.shared != nil {
		// The engine holds the fleet's commits up to its cursor only.
		cursor = ir.shared.cursor
	} else {
		var err error
		if cursor, err = feed.Head(ctx); err != nil {
			ir.saved.Skipped = err.Error()
			ir.warnNotSaved(status, log, err)
			return
		}
	}
	if !ir.load.Rebuilt && cursor == ir.load.Cursor {
		ir.saved.Skipped = "unchanged"
		return
	}
	t := time.Now()
	if ir.saveDelta(ctx, store, cursor, status, log) {
		return
	}
	if !ir.since.IsZero() {
		// A new base holds no entry outside the run's window (nor,
		// then, of any later run's). The engine is not used after the
		// save.
		var err error
		if ir.saved.Expired, err = ir.eng.Expire(ctx, ir.since); err != nil {
			ir.saved.Skipped = err.Error()
			ir.warnNotSaved(status, log, err)
			return
		}
	}
	n, err := SaveIndex(ctx, cfg, ir.eng, store, ir.load.Path, cursor)
	if errors.Is(err, dedup.ErrNoSnapshot) {
		ir.saved.Skipped = "the index has no snapshot"
		return
	}
	if err != nil {
		ir.saved.Skipped = err.Error()
		ir.warnNotSaved(status, log, err)
		return
	}
	ir.saved.Bytes, ir.saved.Entries, ir.saved.Elapsed = n, ir.eng.Len(), time.Since(t)
	expired := ""
	if ir.saved.Expired > 0 {
		expired = fmt.Sprintf(" (%d dropped outside the window)", ir.saved.Expired)
	}
	fmt.Fprintf(status, "index snapshot saved: %d entries%s, %.1f MB in %.1fs (%s)\n", ir.saved.Entries, expired, float64(n)/1e6, ir.saved.Elapsed.Seconds(), ir.load.Path)
}

// warnNotSaved reports a snapshot that could not be saved: the old one (if
// any) stays, and the next run replays a longer tail of the store or
// rebuilds.
func (ir *indexRun) warnNotSaved(status io.Writer, log *slog.Logger, err error) {
	fmt.Fprintf(status, "warning: index snapshot not saved: %v (the old snapshot, if any, stays; the next run replays more of the store or rebuilds)\n", err)
	if log != nil {
		log.Warn("index snapshot not saved", "err", err)
	}
}
