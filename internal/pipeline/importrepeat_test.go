package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
)

// TestImportRepeatInFlight: a URL first seen without a text (not an
// article, so not final), then with one (stored, in the next batch),
// then once more after the first batch committed while the second, which
// holds the stored record, is still being written. The third record is
// already decided by the second; it must not be decided again (which
// the store would refuse, stopping the import).
func TestImportRepeatInFlight(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = filepath.Join(t.TempDir(), "news.db")
	const batch = 40
	lines := strings.Split(strings.TrimSpace(writerTestInput(130)), "\n")
	const u = "http://repeat.example/1"
	lines[0] = fmt.Sprintf(`{"url":%q,"title":"","text":"。"}`, u)
	lines[batch] = fmt.Sprintf(`{"url":%q,"title":"t","text":%s}`, u, quote(randomText(999, 400)))
	lines[batch+24] = lines[batch]
	firstEnded := make(chan struct{})
	var once sync.Once
	hook := func(step string, n int) {
		if step == "ended" && n == 1 {
			once.Do(func() { close(firstEnded) })
		}
	}
	in := StreamImport(strings.NewReader(strings.Join(lines, "\n")+"\n"), "in.jsonl", false)
	records := func(yield func(ImportRecord, error) bool) {
		i := 0
		for r, err := range in {
			if i == batch+24 { // the third record waits for the first batch's commit
				select {
				case <-firstEnded:
					time.Sleep(50 * time.Millisecond)
				case <-time.After(30 * time.Second):
					t.Error("the first batch never ended")
				}
			}
			if !yield(r, err) {
				return
			}
			i++
		}
	}
	st, err := Import(ctx, &cfg, "in.jsonl", records, ImportOptions{Segmenter: seg, batch: batch, onBatch: hook})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if st.AlreadyDecided != 1 {
		t.Errorf("already decided %d, want 1 (stats %+v)", st.AlreadyDecided, st)
	}
}
