package redisindex

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
)

// Candidates implements dedup.Index: one script reads the band buckets
// and head lists of fp and the records of every entry they meet; the
// records are then filtered as lshindex filters its slots.
func (x *Index) Candidates(ctx context.Context, fp *dedup.Fingerprint, q dedup.Query) ([]*dedup.Entry, error) {
	lk := x.sh.Lookup(fp, q)
	if lk == nil && len(fp.Signature) > 0 {
		return nil, nil // no SpotSigs candidates asked for
	}
	args := []any{x.prefix, ""}
	if lk == nil {
		if fp.Hash == ([16]byte{}) {
			return nil, nil
		}
		args[1] = hex.EncodeToString(fp.Hash[:])
		args = append(args, 0, 0, 0)
	} else {
		args = append(args, len(lk.Bands))
		for b, k := range lk.Bands {
			args = append(args, bandArg(b, k))
		}
		args = append(args, len(lk.HeadClasses))
		for _, c := range lk.HeadClasses {
			args = append(args, c)
		}
		args = append(args, len(lk.HeadTokens))
		for _, t := range lk.HeadTokens {
			args = append(args, hexKey(t))
		}
	}
	res, err := candidatesScript.Run(ctx, x.rdb, nil, args...).Slice()
	if err != nil {
		return nil, failed("candidates", err)
	}
	out, err := x.filter(lk, res)
	if err != nil {
		return nil, failed("candidates", err)
	}
	return out, nil
}

// filter decodes the script's answer and keeps what lshindex would
// propose (every record when lk is nil: the text-hash lookup).
func (x *Index) filter(lk *lshindex.Lookup, res []any) ([]*dedup.Entry, error) {
	if len(res) != 3 {
		return nil, fmt.Errorf("answer of %d parts, want 3", len(res))
	}
	lsh, head, recs := strings(res[0]), strings(res[1]), strings(res[2])
	if lsh == nil || head == nil || recs == nil || len(recs)%3 != 0 {
		return nil, fmt.Errorf("malformed answer %.200v", res)
	}
	inLSH := make(map[string]bool, len(lsh))
	for _, id := range lsh {
		inLSH[id] = true
	}
	hits := map[string]int{}
	for _, id := range head {
		hits[id]++
	}
	var out []*dedup.Entry
	for i := 0; i < len(recs); i += 3 {
		e := &dedup.Entry{}
		var err error
		if e.ID, err = strconv.ParseUint(recs[i], 10, 64); err != nil {
			return nil, fmt.Errorf("entry id %q: %w", recs[i], err)
		}
		if e.Cluster, err = strconv.ParseUint(recs[i+2], 10, 64); err != nil {
			return nil, fmt.Errorf("cluster %q of entry %d: %w", recs[i+2], e.ID, err)
		}
		if err := decodeRecord([]byte(recs[i+1]), e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", e.ID, err)
		}
		if lk == nil || lk.Keep(e.Signature, inLSH[recs[i]], hits[recs[i]]) {
			out = append(out, e)
		}
	}
	return out, nil
}

// strings returns v as a list of strings, nil when it is not one.
func strings(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, s := range l {
		str, ok := s.(string)
		if !ok {
			return nil
		}
		out = append(out, str)
	}
	return out
}
