package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestCheckRemovesDamagedSnapshot: a byte flipped inside the index's
// arrays is not seen by a crawl's structural check (which reads no
// array whole) but by `check`, which verifies the checksum and removes
// the file, so that the next crawl rebuilds.
func TestCheckRemovesDamagedSnapshot(t *testing.T) {
	f := newSnapFixture(t)
	good, err := os.ReadFile(f.snap)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 1 // inside the bitmaps or signatures
	if err := os.WriteFile(f.snap, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, load := f.engine(t, f.snap); load.Rebuilt {
		t.Fatalf("load %+v; the test needs damage a crawl's check does not see", load)
	}
	rep, err := Check(context.Background(), &f.cfg, f.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Snapshot, "checksum") || !strings.Contains(rep.Snapshot, "removed") {
		t.Fatalf("check said %q; want the checksum mismatch and the file removed", rep.Snapshot)
	}
	if _, load := f.engine(t, f.snap); !load.Rebuilt {
		t.Fatalf("after check, load %+v; want a rebuild", load)
	}
}

// deltaFixture: a store with a base snapshot and two delta records (two
// imports after the base), and the verdicts of an index rebuilt from it.
type deltaFixture struct {
	*snapFixture
	want   []string
	backup map[string][]byte // the store's files when the base was written
}

func newDeltaFixture(t *testing.T) *deltaFixture {
	t.Helper()
	f := newSnapFixture(t)
	os.Remove(f.snap) // rebuild and save a base of all of parts a and b
	ctx := context.Background()
	st, err := Import(ctx, &f.cfg, "c", seqOf(f.queries[:4]), ImportOptions{Segmenter: f.seg})
	if err != nil || st.Saved.Delta || st.Saved.Bytes == 0 {
		t.Fatalf("import: %v, saved %+v; want a new base", err, st.Saved)
	}
	backup := map[string][]byte{}
	for _, p := range []string{f.cfg.Storage, f.cfg.Storage + "-wal"} {
		if b, err := os.ReadFile(p); err == nil {
			backup[p] = b
		}
	}
	for i, part := range [][]ImportRecord{f.queries[4:8], f.queries[8:12]} {
		st, err = Import(ctx, &f.cfg, "d", seqOf(part), ImportOptions{Segmenter: f.seg})
		if err != nil || !st.Saved.Delta || st.Index.Deltas != i {
			t.Fatalf("import %d: %v, index %+v, saved %+v; want a delta after %d", i, err, st.Index, st.Saved, i)
		}
	}
	fullEng, _ := f.engine(t, "")
	want := decideAll(t, fullEng, f.queries[12:])
	if dups := strings.Count(strings.Join(want, "\n"), "dup=true"); dups == 0 || dups == len(want) {
		t.Fatalf("%d of %d queries are duplicates: the test needs both kinds", dups, len(want))
	}
	return &deltaFixture{snapFixture: f, want: want, backup: backup}
}

// check loads the index as a crawl would and compares its verdicts with
// a rebuild's.
func (f *deltaFixture) check(t *testing.T) IndexLoad {
	t.Helper()
	eng, load := f.engine(t, f.snap)
	if got := decideAll(t, eng, f.queries[12:]); !slicesEqual(got, f.want) {
		t.Fatalf("load %+v: verdicts differ from a rebuild's:\n%s\nwant\n%s", load, strings.Join(got, "\n"), strings.Join(f.want, "\n"))
	}
	return load
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestIndexDeltas: a base plus delta records decides as a rebuild does;
// every fault of the delta file is detected and costs at most a longer
// tail replay or a rebuild, never a wrong verdict.
func TestIndexDeltas(t *testing.T) {
	f := newDeltaFixture(t)
	load := f.check(t)
	if load.Rebuilt || load.Deltas != 2 || load.Tail != 0 || load.DeltaNote != "" {
		t.Fatalf("load %+v; want the base, two deltas and no tail", load)
	}
	good, err := os.ReadFile(deltaPath(f.snap))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := os.ReadFile(f.snap)
	for _, tc := range []struct {
		name    string
		delta   []byte
		deltas  int    // records applied
		note    string // in DeltaNote
		rebuilt string // in Reason when the index must be rebuilt
	}{
		{"torn_last_record", good[:len(good)-7], 1, "torn", ""},
		{"torn_length", good[:len(good)-len(good)/3], 1, "torn", ""},
		{"garbage_after", append(bytes.Clone(good), "NCDELTA\nxx"...), 2, "torn", ""},
		{"flipped_first_record", flipAt(good, 40), 0, "checksum", ""},
		{"missing", nil, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(f.snap, base, 0o644)
			if tc.delta == nil {
				os.Remove(deltaPath(f.snap))
			} else if err := os.WriteFile(deltaPath(f.snap), tc.delta, 0o644); err != nil {
				t.Fatal(err)
			}
			load := f.check(t)
			if load.Rebuilt || load.Deltas != tc.deltas || !strings.Contains(load.DeltaNote, tc.note) || (tc.deltas < 2 && load.Tail == 0) {
				t.Fatalf("load %+v; want %d deltas applied, note %q, a tail", load, tc.deltas, tc.note)
			}
		})
	}
	t.Run("compaction_killed_after_the_rename", func(t *testing.T) {
		// The new base is in place, the old deltas not yet removed.
		os.WriteFile(f.snap, base, 0o644)
		os.WriteFile(deltaPath(f.snap), good, 0o644)
		eng, load := f.engine(t, f.snap)
		store, err := sqlite.Open(context.Background(), f.cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		_, err = SaveIndex(context.Background(), &f.cfg, eng, store, f.snap, load.Cursor)
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(deltaPath(f.snap)); err == nil {
			t.Fatal("the compaction left the old delta file")
		}
		os.WriteFile(deltaPath(f.snap), good, 0o644) // as if killed before its removal
		load = f.check(t)
		if load.Rebuilt || load.Deltas != 0 || !strings.Contains(load.DeltaNote, "replaced base") || load.Tail != 0 {
			t.Fatalf("load %+v; want the new base alone, the old records ignored", load)
		}
	})
	t.Run("store_restored_older_than_deltas", func(t *testing.T) {
		os.WriteFile(f.snap, base, 0o644)
		os.WriteFile(deltaPath(f.snap), good, 0o644)
		for _, p := range []string{f.cfg.Storage, f.cfg.Storage + "-wal", f.cfg.Storage + "-shm"} {
			os.Remove(p)
			if b, ok := f.backup[p]; ok {
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		_, load := f.engine(t, f.snap)
		if !load.Rebuilt || !strings.Contains(load.Reason, "deltas") {
			t.Fatalf("load %+v; want a rebuild: the deltas are ahead of the store", load)
		}
	})
}

func flipAt(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x10
	return c
}

// crashEnv names the step at which the helper process kills itself.
const crashEnv = "NEWSCRAWL_TEST_DELTA_CRASH"

// TestDeltaCrashHelper is the process TestDeltaKilled kills: it appends
// a record to the delta file named by the environment and sends itself
// SIGKILL before the named step.
func TestDeltaCrashHelper(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("run by TestDeltaKilled")
	}
	step, rest, _ := strings.Cut(spec, "|")
	path, rec, _ := strings.Cut(rest, "|")
	recBytes, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	appendDelta(path, fi.Size(), recBytes, func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})
	t.Fatal("not killed")
}

// TestDeltaKilled kills a process appending a delta record (kill -9) at
// every step; the next load applies the records before it and replays
// the store for the rest, deciding as a rebuild does.
func TestDeltaKilled(t *testing.T) {
	f := newDeltaFixture(t)
	good, err := os.ReadFile(deltaPath(f.snap))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(deltaPath(f.snap))
	_, _, n, err := parseDeltaRecord(first)
	if err != nil {
		t.Fatal(err)
	}
	last := t.TempDir() + "/record"
	os.WriteFile(last, good[n:], 0o644)
	for _, tc := range []struct {
		step   string
		deltas int // records the next load applies
	}{{"truncate", 1}, {"write", 1}, {"write-half", 1}, {"sync", 2}, {"close", 2}} {
		step := tc.step
		t.Run(step, func(t *testing.T) {
			os.WriteFile(deltaPath(f.snap), good[:n], 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeltaCrashHelper$")
			cmd.Env = append(os.Environ(), crashEnv+"="+step+"|"+deltaPath(f.snap)+"|"+last)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			load := f.check(t)
			if load.Rebuilt || load.Deltas != tc.deltas || (tc.deltas == 1 && load.Tail == 0) {
				t.Fatalf("load %+v; want the base, %d deltas and the rest replayed from the store", load, tc.deltas)
			}
		})
	}
}

// compactEnv names the step at which the compaction helper kills itself.
const compactEnv = "NEWSCRAWL_TEST_COMPACT_CRASH"

// TestCompactionCrashHelper is the process TestCompactionKilled kills: it
// loads the index of the store named by the environment (base and
// deltas) and writes a new base, sending itself SIGKILL before the named
// step.
func TestCompactionCrashHelper(t *testing.T) {
	spec := os.Getenv(compactEnv)
	if spec == "" {
		t.Skip("run by TestCompactionKilled")
	}
	step, db, _ := strings.Cut(spec, "|")
	cfg := config.Default()
	cfg.Storage = db
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	snap := db + ".index"
	eng, load, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Snapshot: snap, Now: time.Now()})
	if err != nil || load.Rebuilt {
		t.Fatalf("load %+v: %v", load, err)
	}
	saveIndex(ctx, &cfg, eng, store, snap, load.Cursor, func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})
	t.Fatal("not killed")
}

// TestCompactionKilled kills a process writing a new base (kill -9)
// before each step: the next load uses the old base and its deltas, or
// the new base alone, and decides as a rebuild does.
func TestCompactionKilled(t *testing.T) {
	f := newDeltaFixture(t)
	base, _ := os.ReadFile(f.snap)
	delta, _ := os.ReadFile(deltaPath(f.snap))
	for _, tc := range []struct {
		step   string
		deltas int // records the next load applies
		newer  bool
	}{{"index", 2, false}, {"rename", 2, false}, {"remove-delta", 0, true}} {
		t.Run(tc.step, func(t *testing.T) {
			os.WriteFile(f.snap, base, 0o644)
			os.WriteFile(deltaPath(f.snap), delta, 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionCrashHelper$")
			cmd.Env = append(os.Environ(), compactEnv+"="+tc.step+"|"+f.cfg.Storage)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			now, _ := os.ReadFile(f.snap)
			if bytes.Equal(now, base) == tc.newer {
				t.Fatalf("after a kill before %s the base is new: %v, want %v", tc.step, !bytes.Equal(now, base), tc.newer)
			}
			load := f.check(t)
			if load.Rebuilt || load.Deltas != tc.deltas || load.Tail != 0 {
				t.Fatalf("load %+v; want %d deltas applied and no tail", load, tc.deltas)
			}
		})
	}
}
