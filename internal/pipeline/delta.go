package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
)

// Index deltas. A run over a large store changes a few entries of its
// index; rewriting the whole base snapshot at the end of every run costs
// in proportion to the corpus. Instead a run appends one delta record to
// PATH.index.delta: the engine's operations since the load
// (dedup.DeltaSnapshotter: entries added, removed, cluster merges) and the
// store positions it goes from and to. The next run maps the base, applies
// the records in order and replays the store's commits after the last
// one. When the records outgrow their bound (DeltaMaxBytes, or
// 1/DeltaCompactShare of the base), the run writes a new base instead
// (compaction) and removes the delta file.
//
// Record: "NCDELTA\n", the payload's length (8 bytes little-endian), the
// payload (a JSON deltaHeader line, then the engine's delta), and a
// CRC-32C of the payload. Crash safety: a record is appended and synced
// whole, and applied only if its length, checksum, base ID and starting
// position all agree; the first record that does not is ignored with all
// after it (the store's tail replay covers what they held, since the
// store is the log) and the next save cuts the file there. A compaction
// writes the new base beside the old and renames it over it (renameio),
// then removes the delta file: killed before the rename the old base and
// deltas stay valid; after it, the leftover records name the old base and
// are ignored.

// Deltas are compacted into a new base when their bytes would exceed
// 1/DeltaCompactShare of the base's or DeltaMaxBytes. Applying a delta
// costs an Add per entry it holds (the band keys are computed again: about
// 0.1 ms of CPU each on the shared 2-core machine, 1.1 KB of delta each),
// so the bound keeps the start-up work of the deltas under about a second
// whatever the base's size, and the share keeps a small base from
// carrying deltas as large as itself.
const (
	DeltaCompactShare = 64
	DeltaMaxBytes     = 8 << 20
)

const deltaMagic = "NCDELTA\n"

// maxDeltaRecord bounds a record's length (a corrupt length is refused
// before anything is allocated for it).
const maxDeltaRecord = 1 << 34

// deltaHeader says what a delta record holds.
type deltaHeader struct {
	Base string         `json:"base"` // the base snapshot's ID
	From storage.Cursor `json:"from"` // the store position it follows
	To   storage.Cursor `json:"to"`   // the store position it brings the index to
	// ArticleURL is the URL of article To.Article (a store restored from
	// a backup has another, or none, there).
	ArticleURL string    `json:"article_url"`
	Written    time.Time `json:"written"`
}

// deltaPath is the delta file of the snapshot at path.
func deltaPath(path string) string { return path + ".delta" }

// parseDeltaRecord returns the record at the start of b and its length.
func parseDeltaRecord(b []byte) (deltaHeader, []byte, int, error) {
	var h deltaHeader
	if len(b) < len(deltaMagic)+8 || string(b[:len(deltaMagic)]) != deltaMagic {
		return h, nil, 0, errors.New("torn or unreadable record")
	}
	n := binary.LittleEndian.Uint64(b[len(deltaMagic):])
	start := len(deltaMagic) + 8
	if n > maxDeltaRecord || n+4 > uint64(len(b)-start) {
		return h, nil, 0, errors.New("torn record (shorter than its length)")
	}
	payload := b[start : start+int(n)]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[start+int(n):]) {
		return h, nil, 0, errors.New("torn or corrupt record (checksum mismatch)")
	}
	line, body, ok := bytes.Cut(payload, []byte{'\n'})
	if !ok || json.Unmarshal(line, &h) != nil {
		return h, nil, 0, errors.New("record with an unreadable header")
	}
	return h, body, start + int(n) + 4, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// applyDeltas applies the delta records of the base snapshot hdr to eng
// and records in load how far they took it. A record that cannot be
// applied ends the walk (noted in load.DeltaNote); a position the store
// has not reached, or where it holds another article, makes the whole
// snapshot unusable (the store was restored from a backup older than the
// deltas): errUnusable.
func applyDeltas(ctx context.Context, eng *dedup.Engine, store storage.Store, feed changeFeed, path string, hdr snapshotHeader, load *IndexLoad) error {
	load.DeltaCursor, load.deltaURL = hdr.Cursor, hdr.ArticleURL
	b, err := os.ReadFile(deltaPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return unusable("delta: %v", err)
	}
	for len(b) > int(load.DeltaBytes) {
		h, body, n, err := parseDeltaRecord(b[load.DeltaBytes:])
		switch {
		case err != nil:
		case h.Base != hdr.ID:
			err = errors.New("records of a replaced base")
		case h.From != load.DeltaCursor:
			err = fmt.Errorf("a record from %+v, the index is at %+v", h.From, load.DeltaCursor)
		default:
			err = eng.ReadDelta(ctx, bytes.NewReader(body))
		}
		if err != nil {
			load.DeltaNote = fmt.Sprintf("delta ignored from byte %d: %v", load.DeltaBytes, err)
			break
		}
		load.Deltas++
		load.DeltaBytes += int64(n)
		load.DeltaCursor, load.deltaURL = h.To, h.ArticleURL
	}
	if load.Deltas == 0 {
		return nil
	}
	head, err := feed.Head(ctx)
	if err != nil {
		return err
	}
	if !load.DeltaCursor.Before(head) {
		return unusable("its deltas are ahead of the store (at %+v, store at %+v: was the store restored from a backup?)", load.DeltaCursor, head)
	}
	url, err := articleURL(ctx, store, load.DeltaCursor)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && url != load.deltaURL) {
		return unusable("the store's article %d is not the one the deltas saw (restored from a backup?)", load.DeltaCursor.Article)
	}
	return err
}

// saveDelta appends the run's delta record when the index was loaded
// from a base snapshot and the deltas stay under their share of it; it
// reports whether it saved (false: the caller writes a new base).
func (ir *indexRun) saveDelta(ctx context.Context, store storage.Store, cursor storage.Cursor, status io.Writer, log *slog.Logger) bool {
	if ir.load.Rebuilt || ir.load.BaseID == "" {
		return false
	}
	t := time.Now()
	rec, err := deltaRecord(ctx, ir.eng, store, ir.load, cursor)
	if errors.Is(err, dedup.ErrNoSnapshot) {
		return false
	}
	if after := ir.load.DeltaBytes + int64(len(rec)); err == nil && (after*DeltaCompactShare > ir.load.BaseBytes || after > DeltaMaxBytes) {
		return false // compaction
	}
	if err == nil {
		err = appendDelta(deltaPath(ir.load.Path), ir.load.DeltaBytes, rec, nil)
	}
	if err != nil {
		// The base and the deltas before stay valid: the next run
		// replays more of the store.
		ir.saved.Skipped = err.Error()
		ir.warnNotSaved(status, log, err)
		return true
	}
	ir.saved.Bytes, ir.saved.Entries, ir.saved.Elapsed, ir.saved.Delta = int64(len(rec)), ir.eng.Len(), time.Since(t), true
	fmt.Fprintf(status, "index delta saved: %d entries, %.1f KB in %.2fs (%s)\n", ir.saved.Entries, float64(len(rec))/1e3, ir.saved.Elapsed.Seconds(), deltaPath(ir.load.Path))
	return true
}

// deltaRecord is the record of eng's changes since its load (from
// load.DeltaCursor to cursor).
func deltaRecord(ctx context.Context, eng *dedup.Engine, store storage.Store, load IndexLoad, cursor storage.Cursor) ([]byte, error) {
	var body bytes.Buffer
	if err := eng.WriteDelta(&body); err != nil {
		return nil, err
	}
	h := deltaHeader{Base: load.BaseID, From: load.DeltaCursor, To: cursor, Written: time.Now().UTC()}
	var err error
	if h.ArticleURL, err = articleURL(ctx, store, cursor); err != nil {
		return nil, fmt.Errorf("save index delta: %w", err)
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("save index delta: %w", err)
	}
	payload := append(append(line, '\n'), body.Bytes()...)
	rec := append([]byte(deltaMagic), binary.LittleEndian.AppendUint64(nil, uint64(len(payload)))...)
	rec = append(rec, payload...)
	return binary.LittleEndian.AppendUint32(rec, crc32.Checksum(payload, castagnoli)), nil
}

// appendDelta cuts the delta file at path to the good bytes its load
// applied (valid) and appends rec, synced. step, when set, is called
// before each step with its name (the crash tests stop the process there).
func appendDelta(path string, valid int64, rec []byte, step func(string)) error {
	if step == nil {
		step = func(string) {}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("save index delta: %w", err)
	}
	defer f.Close()
	step("truncate")
	if err := f.Truncate(valid); err != nil {
		return fmt.Errorf("save index delta: %w", err)
	}
	step("write")
	if _, err := f.WriteAt(rec[:len(rec)/2], valid); err != nil {
		return fmt.Errorf("save index delta: %w", err)
	}
	step("write-half")
	if _, err := f.WriteAt(rec[len(rec)/2:], valid+int64(len(rec)/2)); err != nil {
		return fmt.Errorf("save index delta: %w", err)
	}
	step("sync")
	if err := f.Sync(); err != nil {
		return fmt.Errorf("save index delta: %w", err)
	}
	step("close")
	return f.Close()
}
