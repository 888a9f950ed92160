package dedup

import "github.com/newsdedup/newscrawl/simhash"

// Stale reports whether fp's verdict v, decided by Decide, may change
// because added entries were indexed (and merges cluster merges applied)
// after it: one of the added entries passes verification with fp (the
// Hamming radius in SimhashOnly mode) or is the lead-image evidence of a
// short text (decideImage), or v joins or names a cluster (a duplicate or
// a partial reprint) and clusters were merged meanwhile. When Stale is
// false, Decide over the updated index returns v again: Decide forms its
// verdict only from the entries that pass verification (a duplicate's
// match, or a partial reprint's: the partial-reprint rule judges only
// verified pairs) and, when none does, from the image rule's evidence;
// these, and their clusters, are the same.
// Processes deciding against their own copies of a shared index use it to
// re-check an optimistic verdict against what others committed meanwhile
// (internal/pipeline), deciding again only when it is stale.
func (e *Engine) Stale(fp *Fingerprint, v Verdict, added []Entry, merges int) bool {
	if fp.Empty() {
		return false // never joins or opens a cluster
	}
	if merges > 0 && (v.Duplicate || v.Reason == "partial") {
		return true
	}
	for i := range added {
		if e.opts.Research.Mode == SimhashOnly {
			if simhash.Distance(fp.Simhash, added[i].Simhash) <= e.opts.Hamming {
				return true
			}
			continue
		}
		if _, _, reason := e.verify(fp, &added[i]); reason != "" {
			return true
		}
		if e.imageEvidence(fp, &added[i]) {
			return true
		}
	}
	return false
}
