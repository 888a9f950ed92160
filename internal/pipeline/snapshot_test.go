package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// snapCorpus is the fixture stories with rewrites, in two parts and
// held-out queries. A story of five paragraphs or more enters part a as
// two halves that share nothing (two clusters) and part b as a text
// bridging them (a cluster merge in the second part) and in full; the
// others enter part a in full. Copies missing a paragraph go to a (but
// for the long stories, whose copies bridge the halves), b or the
// queries in turn.
func snapCorpus() (a, b, queries []ImportRecord) {
	for _, s := range fixture.Stories() {
		p := s.Paragraphs
		full := ImportRecord{URL: "http://a/" + s.ID, Title: s.Title, Text: strings.Join(p, "\n"), Site: "a"}
		if len(p) >= 5 {
			a = append(a,
				ImportRecord{URL: "http://b/" + s.ID + "/lo", Title: s.Title, Text: strings.Join(p[:3], "\n"), Site: "b"},
				ImportRecord{URL: "http://b/" + s.ID + "/hi", Title: s.Title, Text: strings.Join(p[3:5], "\n"), Site: "b"})
			b = append(b, ImportRecord{URL: "http://b/" + s.ID + "/mid", Title: s.Title, Text: strings.Join(p[1:4], "\n"), Site: "b"}, full)
			queries = append(queries,
				ImportRecord{URL: "http://q/" + s.ID + "/hi", Title: s.Title, Text: strings.Join(p[3:5], "\n") + "\n（完）"},
				ImportRecord{URL: "http://q/" + s.ID + "/lo", Title: s.Title, Text: strings.Join(p[:3], "\n") + "\n（完）"})
		} else {
			a = append(a, full)
		}
		for i := range p {
			r := ImportRecord{URL: fmt.Sprintf("http://c/%s/%d", s.ID, i), Title: s.Title,
				Text: strings.Join(append(append([]string{}, p[:i]...), p[i+1:]...), "\n"), Site: "c"}
			switch i % 3 {
			case 0:
				if len(p) >= 5 {
					b = append(b, r) // a bridge too: keep the halves apart in a
				} else {
					a = append(a, r)
				}
			case 1:
				b = append(b, r)
			default:
				queries = append(queries, r)
			}
		}
		queries = append(queries, ImportRecord{URL: "http://q/" + s.ID + "/new", Title: s.Title + "？", Text: "与此无关的一段新文字，讲述" + s.Title + "之外的另一件事。"})
	}
	return a, b, queries
}

func seqOf(recs []ImportRecord) func(func(ImportRecord, error) bool) {
	return func(yield func(ImportRecord, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// snapFixture is a SQLite store filled through Import in two parts; the
// snapshot written after the first part is put back after the second, as
// when a run commits and is killed before it saves its index.
type snapFixture struct {
	cfg     config.Config
	seg     dedup.Segmenter
	snap    string // the snapshot path
	queries []ImportRecord
}

func newSnapFixture(t *testing.T) *snapFixture {
	t.Helper()
	ctx := context.Background()
	f := &snapFixture{cfg: config.Default()}
	f.cfg.Storage = filepath.Join(t.TempDir(), "news.db")
	seg, err := NewSegmenter(f.cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	f.seg = seg
	partA, partB, queries := snapCorpus()
	f.queries = queries
	st, err := Import(ctx, &f.cfg, "a", seqOf(partA), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.Saved.Bytes == 0 || st.Saved.Skipped != "" {
		t.Fatalf("first import saved no snapshot: %+v", st.Saved)
	}
	f.snap = st.Saved.Path
	old, err := os.ReadFile(f.snap)
	if err != nil {
		t.Fatal(err)
	}
	st, err = Import(ctx, &f.cfg, "b", seqOf(partB), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.Index.Rebuilt || st.Index.Tail != 0 || st.Duplicates == 0 {
		t.Fatalf("second import: index %+v, %d duplicates; want the snapshot without a tail, some duplicates", st.Index, st.Duplicates)
	}
	if !st.Saved.Delta {
		t.Fatalf("second import saved %+v; want a delta record", st.Saved)
	}
	if err := os.WriteFile(f.snap, old, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(deltaPath(f.snap)) // the run's delta record was never written
	return f
}

func (f *snapFixture) engine(t *testing.T, snapshot string) (*dedup.Engine, IndexLoad) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, f.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	eng, load, err := NewEngine(ctx, &f.cfg, f.seg, store, EngineConfig{Snapshot: snapshot, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return eng, load
}

// decideAll decides the queries in turn, indexing each like the pipeline
// does, and returns the verdicts.
func decideAll(t *testing.T, eng *dedup.Engine, queries []ImportRecord) []string {
	t.Helper()
	ctx := t.Context()
	var out []string
	for i, q := range queries {
		fp := eng.Fingerprint(q.Title, q.Text)
		v, err := eng.Decide(ctx, fp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s: dup=%t of=%d cluster=%d matched=%d reason=%s merged=%v", q.URL, v.Duplicate, v.DupOf, v.Cluster, v.Matched, v.Reason, v.Merged))
		id := uint64(1_000_000 + i)
		if v.Duplicate {
			err = eng.MergeClusters(ctx, v.Cluster, v.Merged)
			if err == nil {
				err = eng.AddMember(ctx, MemberID(q.URL), v.Cluster, fp)
			}
		} else {
			err = eng.Add(ctx, id, 0, fp)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestIndexSnapshotTail: an index loaded from a snapshot plus the store's
// commits after it (articles, duplicates, cluster merges, among them a
// run's commits that were never saved in a snapshot) decides a sequence of
// pages exactly like an index rebuilt from the store.
func TestIndexSnapshotTail(t *testing.T) {
	f := newSnapFixture(t)
	snapEng, load := f.engine(t, f.snap)
	if load.Rebuilt || load.Tail == 0 || load.Snapshot == 0 {
		t.Fatalf("load %+v; want the snapshot and a tail", load)
	}
	if n := f.merges(t); n == 0 {
		t.Fatal("the second part merged no clusters: the test needs merges in the tail")
	}
	fullEng, full := f.engine(t, "")
	if !full.Rebuilt || full.Entries != load.Entries {
		t.Fatalf("rebuild %+v, snapshot load %+v: want the same number of entries", full, load)
	}
	got, want := decideAll(t, snapEng, f.queries), decideAll(t, fullEng, f.queries)
	dups := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d:\n snapshot + tail: %s\n rebuilt:         %s", i, got[i], want[i])
		}
		if strings.Contains(want[i], "dup=true") {
			dups++
		}
	}
	if dups == 0 || dups == len(want) {
		t.Fatalf("%d of %d queries are duplicates: the test needs both kinds", dups, len(want))
	}
}

// TestIndexSnapshotFallback: a snapshot that cannot be trusted is not
// used; the index is rebuilt and the reason said.
func TestIndexSnapshotFallback(t *testing.T) {
	f := newSnapFixture(t)
	good, err := os.ReadFile(f.snap)
	if err != nil {
		t.Fatal(err)
	}
	_, full := f.engine(t, "")
	for _, tc := range []struct {
		name   string
		data   func() []byte // the snapshot file's content (nil: none)
		cfg    func(c *config.Config)
		reason string
	}{
		{"missing", func() []byte { return nil }, nil, "no snapshot"},
		{"truncated", func() []byte { return good[:len(good)*2/3] }, nil, "truncated"},
		{"flipped magic", func() []byte {
			b := []byte(string(good))
			b[3] ^= 1
			return b
		}, nil, "not an index snapshot"},
		{"index truncated", func() []byte { return good[:len(good)-3] }, nil, "truncated"},
		{"not a snapshot", func() []byte { return []byte("hello\n") }, nil, "not an index snapshot"},
		{"data after the index", func() []byte { return append([]byte(string(good)), 0) }, nil, "bytes after the snapshot"},
		{"other options", func() []byte { return good }, func(c *config.Config) { c.Dedup.Jaccard = 0.4 }, "other dedup options"},
		{"index without entry times", func() []byte {
			// The format before the window times: its version.
			b := []byte(string(good))
			i := bytes.Index(b, []byte("NCLSHIX\n"))
			binary.LittleEndian.PutUint32(b[i+len("NCLSHIX\n"):], 2)
			return b
		}, nil, "written with other options"},
		{"window without times", func() []byte { return good }, func(c *config.Config) {
			c.Dedup.Window, c.Dedup.Index = config.Duration(24*time.Hour), ExhaustiveIndex
		}, "keeps no entry times"},
		{"other window", func() []byte { return good }, func(c *config.Config) { c.Dedup.Window = config.Duration(24 * time.Hour) }, "other dedup options"},
		{"other store name", func() []byte {
			return []byte(strings.Replace(string(good), `"store":"`, `"store":"/elsewhere`, 1))
		}, nil, "written for store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := tc.data(); d == nil {
				os.Remove(f.snap)
			} else if err := os.WriteFile(f.snap, d, 0o644); err != nil {
				t.Fatal(err)
			}
			saved := f.cfg
			if tc.cfg != nil {
				tc.cfg(&f.cfg)
			}
			defer func() { f.cfg = saved }()
			_, load := f.engine(t, f.snap)
			if !load.Rebuilt || !strings.Contains(load.Reason, tc.reason) {
				t.Fatalf("load %+v; want a rebuild because %q", load, tc.reason)
			}
			if tc.cfg == nil && load.Entries != full.Entries {
				t.Fatalf("rebuilt %d entries, want %d", load.Entries, full.Entries)
			}
			if !strings.Contains(load.String(), "rebuilt") {
				t.Fatalf("start-up line %q does not say rebuilt", load)
			}
		})
	}
}

// TestIndexSnapshotStoreMoved: a snapshot ahead of its store (the store
// was restored from a backup) or of another store at the same path is
// not used.
func TestIndexSnapshotStoreMoved(t *testing.T) {
	ctx := context.Background()
	f := newSnapFixture(t)
	_, load := f.engine(t, f.snap)
	if load.Rebuilt {
		t.Fatalf("load %+v", load)
	}
	files := []string{f.cfg.Storage, f.cfg.Storage + "-wal"}
	backup := map[string][]byte{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			backup[p] = b
		}
	}
	// A run saves a snapshot ahead of the backup.
	st, err := Import(ctx, &f.cfg, "c", seqOf([]ImportRecord{{URL: "http://d/1", Title: "新", Text: "一篇全新的文章，写的是另一件事情。", Site: "d"}}), ImportOptions{Segmenter: f.seg})
	if err != nil || st.Saved.Bytes == 0 {
		t.Fatalf("import: %v, saved %+v", err, st.Saved)
	}
	for _, p := range files {
		os.Remove(p)
		os.Remove(f.cfg.Storage + "-shm")
		if b, ok := backup[p]; ok {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("ahead", func(t *testing.T) {
		_, load := f.engine(t, f.snap)
		if !load.Rebuilt || !strings.Contains(load.Reason, "ahead of the store") {
			t.Fatalf("load %+v; want a rebuild: the snapshot is ahead", load)
		}
	})
	t.Run("another store", func(t *testing.T) {
		// Another store as far along, with other articles.
		store, err := sqlite.Open(ctx, f.cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		a := &storage.Article{Site: "e", Title: "别的", Text: "别的", ContentHash: strings.Repeat("0", 64)}
		err = store.Commit(ctx, &storage.Commit{Page: storage.Page{URL: "http://e/1", Site: "e", Outcome: storage.OutcomeStored}, Article: a})
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, load := f.engine(t, f.snap)
		if !load.Rebuilt || !strings.Contains(load.Reason, "is not the one the") {
			t.Fatalf("load %+v; want a rebuild: another store", load)
		}
	})
}

// TestIndexSnapshotFindsUnsavedCommit: a run that commits an article and
// dies before saving its index: the next run's tail replay indexes it, so
// its reprint is a duplicate.
func TestIndexSnapshotFindsUnsavedCommit(t *testing.T) {
	ctx := context.Background()
	f := newSnapFixture(t)
	// A story of its own, in no fixture.
	text := strings.Join([]string{
		"本报讯 昨天上午，市气象台发布了今年入冬以来的第一个寒潮蓝色预警，预计未来三天全市气温将下降八到十度，最低气温将降至零下五度左右。",
		"气象专家提醒，这次寒潮的特点是降温幅度大、风力强，市民在出行时要注意防寒保暖，老人和儿童尽量减少户外活动，驾车出行的市民要注意道路结冰。",
		"据了解，市供热部门已经提前做好了准备，各供热站的设备都进行了检修，确保寒潮期间居民家中的室内温度达到标准，有困难的居民可以拨打热线电话求助。",
		"此外，市农业部门也发出通知，要求各区县做好蔬菜大棚的防寒工作，加固棚体，增加覆盖物，防止蔬菜受冻，保障寒潮期间全市的蔬菜供应和价格稳定。",
	}, "\n")
	store, err := sqlite.Open(ctx, f.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := f.engine(t, f.snap)
	fp := eng.Fingerprint("独家", text+"\n本文为独家报道。")
	a := &storage.Article{Site: "k", Title: "独家", Text: text, ContentHash: fmt.Sprintf("%x", fp.Hash),
		Fingerprint: storage.Fingerprint{Simhash: fp.Simhash, Signature: fp.Signature, Length: fp.Words}}
	err = store.Commit(ctx, &storage.Commit{Page: storage.Page{URL: "http://k/1", Site: "k", Outcome: storage.OutcomeStored}, Article: a})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Killed here: no snapshot written. The next run:
	eng, load := f.engine(t, f.snap)
	if load.Rebuilt || load.Tail == 0 {
		t.Fatalf("load %+v; want the snapshot and a tail", load)
	}
	v, err := eng.Decide(ctx, eng.Fingerprint("独家", text))
	if err != nil || !v.Duplicate || v.Matched != uint64(a.ID) {
		t.Fatalf("verdict %+v (error %v); want a duplicate matching the unsaved article %d", v, err, a.ID)
	}
}

// merges counts the cluster merges the second part logged.
func (f *snapFixture) merges(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, f.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n := 0
	if _, err := store.Changes(ctx, storage.Cursor{Article: 1 << 62, Duplicate: 1 << 62}, func(c storage.Change) error {
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// halfWriter is a PrefixIndex whose snapshot fails after some bytes, as
// a crash or a full disk would stop it.
type halfWriter struct{ *dedup.PrefixIndex }

func (h halfWriter) WriteSnapshot(w io.Writer) error {
	var b bytes.Buffer
	if err := h.PrefixIndex.WriteSnapshot(&b); err != nil {
		return err
	}
	w.Write(b.Bytes()[:b.Len()/2])
	return errors.New("disk full")
}

// TestSaveIndexFailureKeepsOld: a snapshot write that fails half way
// leaves the previous snapshot whole (and used) and no temporary file.
func TestSaveIndexFailureKeepsOld(t *testing.T) {
	ctx := context.Background()
	f := newSnapFixture(t)
	before, err := os.ReadFile(f.snap)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := EngineOptions(f.cfg.Dedup)
	if err != nil {
		t.Fatal(err)
	}
	x, err := dedup.NewPrefixIndex(dedup.DefaultJaccard, dedup.DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	opts.Index = halfWriter{x}
	eng, err := dedup.New(f.seg, opts)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, f.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	head, err := store.Head(ctx)
	if err == nil {
		_, err = SaveIndex(ctx, &f.cfg, eng, store, f.snap, head)
	}
	store.Close()
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("SaveIndex = %v, want the write's error", err)
	}
	after, err := os.ReadFile(f.snap)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the old snapshot changed (%d -> %d bytes, %v)", len(before), len(after), err)
	}
	if _, load := f.engine(t, f.snap); load.Rebuilt {
		t.Fatalf("the old snapshot is not used: %+v", load)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(f.snap), "*"))
	for _, p := range files {
		if b := filepath.Base(p); b != "news.db" && !strings.HasPrefix(b, "news.db-") && b != "news.db.lock" && b != "news.db.index" {
			t.Errorf("file left behind: %s", b)
		}
	}
}
