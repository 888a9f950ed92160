package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
)

// CheckReport is what Check verified.
type CheckReport struct {
	Store     string        // the store, without credentials
	FileCheck bool          // SQLite: the whole file was read (PRAGMA quick_check) and the check recorded
	StoreTook time.Duration // the store's checks
	// Snapshot says whether the index snapshot is usable by the next
	// crawl ("usable: N entries, …") or why not; an unusable snapshot is
	// not damage to the corpus (the next crawl rebuilds the index).
	Snapshot     string
	SnapshotTook time.Duration
}

// Check is the full integrity check of the store db, for a cron line of
// its own or before a backup: every store checks its cross-table
// invariants (storage.Store.Check; for a SQLite file also PRAGMA
// integrity_check, which reads it whole, recorded for later crawls, see
// checkStore), and the index
// snapshot is read whole and checked against the store and cfg's dedup
// options. No crawl lock is taken: it only reads, apart from recording
// the file check. A damaged store is an error; an unusable snapshot is
// reported in CheckReport.Snapshot.
func Check(ctx context.Context, cfg *config.Config, db string) (CheckReport, error) {
	rep := CheckReport{Store: StoreName(db)}
	var store storage.Store
	var err error
	switch {
	case IsPostgres(db):
		// Nothing to record: read-only, and an empty schema stays empty.
		store, err = OpenExisting(ctx, db)
	default:
		if err = CheckStoreName(db); err == nil {
			err = sqliteExists(db) // a missing file or folder: storage.ErrNoStore
		}
		if err == nil {
			store, err = OpenStore(ctx, db)
		}
	}
	if err != nil {
		return rep, err
	}
	defer store.Close()
	t := time.Now()
	// SQLite's Check runs PRAGMA integrity_check, which reads every page
	// as quick_check does and also compares each index with its table.
	if err := store.Check(ctx); err != nil {
		return rep, err
	}
	if qc, ok := store.(quickChecker); ok {
		if err := qc.RecordQuickCheck(ctx, time.Now()); err != nil {
			return rep, err
		}
		rep.FileCheck = true
	}
	rep.StoreTook = time.Since(t)
	t = time.Now()
	c := *cfg
	c.Storage = db
	rep.Snapshot, err = checkSnapshot(ctx, &c, store)
	rep.SnapshotTook = time.Since(t)
	return rep, err
}

// checkSnapshot reads the store's index snapshot as a crawl would and says
// whether the next crawl can use it.
func checkSnapshot(ctx context.Context, cfg *config.Config, store storage.Store) (string, error) {
	feed, ok := store.(changeFeed)
	if !ok {
		return "none (the store keeps no snapshot)", nil
	}
	path, err := IndexSnapshotPath(cfg.Storage)
	if err != nil || path == "" {
		return "none (the store keeps no snapshot)", nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "none at " + path + " (the next crawl builds the index from the store and saves one)", nil
	}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		return "", err
	}
	eng, hdr, err := readSnapshotFile(ctx, cfg, seg, store, feed, path, true)
	load := IndexLoad{}
	if err == nil {
		err = applyDeltas(ctx, eng, store, feed, path, hdr, &load)
	}
	var un errUnusable
	switch {
	case errors.As(err, &un):
		return unusableSnapshot(ctx, cfg, seg, store, feed, path, un), nil
	case err != nil:
		return "", err
	}
	head, err := feed.Head(ctx)
	if err != nil {
		return "", err
	}
	behind := ""
	if load.DeltaCursor != head {
		behind = "; the store has commits after it, which the next crawl replays"
	}
	deltas := ""
	if load.Deltas > 0 || load.DeltaNote != "" {
		deltas = fmt.Sprintf(", %d delta records", load.Deltas)
		if load.DeltaNote != "" {
			deltas += " (" + load.DeltaNote + ")"
		}
	}
	return fmt.Sprintf("usable: %d entries%s (%s)%s", eng.Len(), deltas, path, behind), nil
}

// unusableSnapshot says why the snapshot cannot be used. When the damage
// is one only the full check sees (a crawl checks the header and the
// structure, not the checksum of every array), the file is removed, so
// that the next crawl rebuilds the index instead of using it.
func unusableSnapshot(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, feed changeFeed, path string, un errUnusable) string {
	msg := fmt.Sprintf("not usable: %s (the next crawl rebuilds the index from the store)", un.reason)
	if _, _, err := readSnapshotFile(ctx, cfg, seg, store, feed, path, false); err != nil {
		return msg
	}
	if err := os.Remove(path); err != nil {
		return msg + fmt.Sprintf("; a crawl would use it and it could not be removed: %v", err)
	}
	os.Remove(deltaPath(path))
	return msg + "; removed, as a crawl would have used it"
}
