package evalcrash

// The checks (a)-(d) of a store after a crash series.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// ExportNormalised exports a store as sorted JSON lines without fetched_at
// and run_id.
func ExportNormalised(ctx context.Context, db string) ([]string, error) {
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var buf bytes.Buffer
	if _, err := pipeline.Export(ctx, store, &buf); err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("export line: %w", err)
		}
		delete(m, "fetched_at")
		delete(m, "run_id")       // a crashed crawl takes more runs than an uninterrupted one
		b, err := json.Marshal(m) // map keys are sorted
		if err != nil {
			return nil, err
		}
		lines = append(lines, string(b))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(lines)
	return lines, nil
}

// CheckStore runs checks (a)-(d) on the store file db; refDecided and
// refExport are the reference's (refDecided nil: this is the reference).
func CheckStore(ctx context.Context, db string, cfg *config.Config, seg dedup.Segmenter, truth Truth, refDecided map[string]bool, refExport []string) Check {
	c := Check{Undecided: map[string]int{}, DecidedSet: map[string]bool{}, Runs: map[string]int{}, Allowed: len(truth.Allowed)}
	audit, err := sqlite.AuditFile(ctx, db)
	if err != nil {
		c.fail("(b) audit %s: %v", db, err)
		return c
	}
	c.checkDecisions(audit, truth, refDecided)
	c.checkState(audit)

	store, err := sqlite.Open(ctx, db)
	if err != nil {
		c.fail("(b) open store: %v", err)
		return c
	}
	defer store.Close()
	if err := store.Check(ctx); err != nil {
		c.fail("(b) store check: %v", err)
	}
	c.checkIndex(ctx, store, cfg, seg)
	c.checkExport(ctx, db, refDecided, refExport)
	return c
}

// checkDecisions is check (a): every allowed URL decided at most once,
// the same URLs as the reference, no robots-disallowed fetch.
func (c *Check) checkDecisions(audit *sqlite.Audit, truth Truth, refDecided map[string]bool) {
	count := map[string]int{}
	canon := func(u string) string {
		if to, ok := truth.Redirects[u]; ok {
			return to
		}
		return u
	}
	for _, u := range audit.Articles {
		c.Stored++
		count[canon(u)]++
	}
	for _, u := range audit.Duplicates {
		c.Dups++
		count[canon(u)]++
	}
	for u, n := range count {
		if n > 1 {
			c.fail("(a) %s decided %d times (stored and/or duplicate)", u, n)
		}
		if !truth.Allowed[u] {
			c.fail("(a) %s decided but not an allowed article of truth.jsonl", u)
		}
	}
	for u := range truth.Allowed {
		if count[u] > 0 {
			c.DecidedSet[u] = true
			c.Decided++
			continue
		}
		if o, ok := audit.Pages[u]; ok {
			c.Undecided[o]++
		} else {
			c.Undecided["not fetched"]++
		}
	}
	if refDecided != nil {
		for u := range refDecided {
			if !c.DecidedSet[u] {
				c.fail("(a) %s decided by the reference, not by the killed series", u)
			}
		}
		for u := range c.DecidedSet {
			if !refDecided[u] {
				c.fail("(a) %s decided by the killed series, not by the reference", u)
			}
		}
	}
	for u := range audit.Pages {
		if truth.Disallowed[u] {
			c.fail("(a) robots-disallowed %s was fetched", u)
		}
	}
}

// checkState is check (b) on the tables: integrity, an empty frontier, the
// last run completed and no run left running.
func (c *Check) checkState(audit *sqlite.Audit) {
	if audit.Integrity != "ok" {
		c.fail("(b) integrity_check: %q", audit.Integrity)
	}
	if audit.Frontier != 0 {
		c.fail("(b) %d frontier items left after the completed run", audit.Frontier)
	}
	last := ""
	for _, s := range audit.Runs {
		c.Runs[s]++
		last = s
	}
	if last != storage.RunCompleted {
		c.fail("(b) last run %q, want completed", last)
	}
	if n := c.Runs[storage.RunRunning]; n > 0 {
		c.fail("(b) %d killed runs still marked running after a completed run", n)
	}
}

// checkIndex is check (c): the index rebuilt from the store agrees with
// the stored text.
func (c *Check) checkIndex(ctx context.Context, store storage.Store, cfg *config.Config, seg dedup.Segmenter) {
	eng, load, err := pipeline.NewEngine(ctx, cfg, seg, store, pipeline.EngineConfig{Now: time.Now()})
	if err != nil {
		c.fail("(c) rebuild index: %v", err)
		return
	}
	c.Indexed = load.Entries
	want := c.Stored // cluster centres
	if !eng.Options().CentresOnly {
		want += c.Dups // and their members
	}
	if load.Entries != want {
		c.fail("(c) index rebuilt with %d entries, the store has %d articles and %d duplicates", load.Entries, c.Stored, c.Dups)
	}
	err = store.Articles(ctx, func(a storage.Article) error {
		fp := eng.Fingerprint(a.Title, a.Text)
		switch {
		case fp.Simhash != a.Fingerprint.Simhash:
			c.fail("(c) article %d %s: stored simhash %016x, text gives %016x", a.ID, a.URL, a.Fingerprint.Simhash, fp.Simhash)
		case !slices.Equal(fp.Signature, a.Fingerprint.Signature):
			c.fail("(c) article %d %s: stored signature (%d spots) differs from the text's (%d spots)", a.ID, a.URL, len(a.Fingerprint.Signature), len(fp.Signature))
		case hex.EncodeToString(fp.Hash[:]) != a.ContentHash:
			c.fail("(c) article %d %s: content hash differs", a.ID, a.URL)
		case fp.Words != a.Fingerprint.Length:
			c.fail("(c) article %d %s: stored length %d, text has %d words", a.ID, a.URL, a.Fingerprint.Length, fp.Words)
		}
		if v := eng.Decide(fp); !v.Duplicate || v.Matched != uint64(a.ID) {
			c.fail("(c) article %d %s: the rebuilt index answers %+v, want an exact match of itself", a.ID, a.URL, v)
		}
		return nil
	})
	if err != nil {
		c.fail("(c) read articles: %v", err)
	}
}

// checkExport is check (d): the export equals the reference's.
func (c *Check) checkExport(ctx context.Context, db string, refDecided map[string]bool, refExport []string) {
	lines, err := ExportNormalised(ctx, db)
	if err != nil {
		c.fail("(d) export: %v", err)
		return
	}
	c.ExportLines = len(lines)
	if refDecided == nil {
		return
	}
	onlyHere, onlyRef := sortedDiff(lines, refExport)
	c.ExportDiff = len(onlyHere) + len(onlyRef)
	for i := 0; i < len(onlyHere) && i < 3; i++ {
		c.fail("(d) only in the killed series' export: %s", lastBytes(onlyHere[i], 300))
	}
	for i := 0; i < len(onlyRef) && i < 3; i++ {
		c.fail("(d) only in the reference export: %s", lastBytes(onlyRef[i], 300))
	}
	if c.ExportDiff > 0 {
		c.fail("(d) %d export lines differ", c.ExportDiff)
	}
}

// sortedDiff returns the lines only in a and only in b (both sorted; a
// line repeated counts as often as it occurs).
func sortedDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

// Verdict is ok (with a figure) unless a problem of check ("(a)" to "(d)")
// was found: then "FAIL (n)".
func (c Check) Verdict(check, ok string) string {
	n := 0
	for _, p := range c.Problems {
		if strings.HasPrefix(p, check) {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("FAIL (%d)", n)
	}
	return ok
}
