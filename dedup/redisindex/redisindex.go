// Package redisindex is a dedup.Index held in Redis, so that every crawler
// process of a corpus shares one index and a new process loads nothing: it
// stores the keys of the MinHash-LSH candidate stage of dedup/lshindex
// (band buckets and head lists, computed by lshindex.Shared with the same
// hashing; Leskovec, Rajaraman, Ullman, "Mining of Massive Datasets",
// ch. 3), not posting lists of every spot, plus one record per entry with
// what verification needs and the cluster merge map, and applies
// lshindex's exact parity-bitmap and path filters to what the keys meet.
//
// Keys, under a prefix of the caller's (one per store):
//
//	e:ID           hash: d = the entry's record, c = its cluster
//	b:BAND:KEY     set of ids: the entries whose band BAND has key KEY
//	h:TOKEN:CLASS  list of ids, newest first, at most lshindex.HeadListCap
//	cls            hash: head length class -> entries with a head
//	df             hash: spot -> entries holding it (head selection)
//	x:HASH         id of the entry without spots whose text hash is HASH
//	m, a:C         merged cluster -> survivor; clusters merged into C
//	n              number of entries (Len)
//
// Add, Remove, MergeClusters and the reads of Candidates are Lua scripts:
// each is atomic, and Candidates is one round trip (Add two: it reads the
// spots' document frequencies first). Every call takes the caller's
// context and returns the Redis error it met: a failed Candidates fails
// the decision instead of proposing no candidates.
package redisindex

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// Index is the shared index. It is safe for concurrent use, by goroutines
// and by processes (Index values on the same server and prefix).
type Index struct {
	rdb    *redis.Client
	prefix string
	sh     *lshindex.Shared
	// n is the number of entries as of the last Count, plus this value's
	// own adds and removes since (Len).
	n atomic.Int64
}

var _ dedup.Index = (*Index)(nil)

// New returns the index under prefix on rdb (the caller keeps and closes
// the client) for the thresholds of cfg; ctx bounds the checks New makes
// (a ping and the entry count). Entries already under the prefix are the
// index's.
func New(ctx context.Context, rdb *redis.Client, prefix string, cfg lshindex.Config) (*Index, error) {
	if rdb == nil {
		return nil, fmt.Errorf("redisindex: nil client")
	}
	sh, err := lshindex.NewShared(cfg)
	if err != nil {
		return nil, fmt.Errorf("redisindex: %w", err)
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redisindex: %w", err)
	}
	x := &Index{rdb: rdb, prefix: prefix, sh: sh}
	if _, err := x.Count(ctx); err != nil {
		return nil, err
	}
	return x, nil
}

// failed wraps the error of operation op.
func failed(op string, err error) error {
	return fmt.Errorf("redisindex: %s: %w", op, err)
}

func hexKey(v uint64) string { return strconv.FormatUint(v, 16) }

func bandArg(b int, k uint32) string {
	return strconv.Itoa(b) + ":" + strconv.FormatUint(uint64(k), 16)
}

func hashArg(e *dedup.Entry) string {
	if len(e.Signature) > 0 || e.Hash == ([16]byte{}) {
		return ""
	}
	return hex.EncodeToString(e.Hash[:])
}

// distinct returns the distinct spots of a sorted signature.
func distinct(sig spotsigs.Signature) []uint64 {
	var out []uint64
	for i, s := range sig {
		if i == 0 || s != sig[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// Add implements dedup.Index: a repeated id is ignored (one round trip;
// a new one takes two: its spots' frequencies, then the script).
func (x *Index) Add(ctx context.Context, e dedup.Entry) error {
	spots := distinct(e.Signature)
	df, known, err := x.frequencies(ctx, e.ID, spots)
	if err != nil {
		return failed("add", err)
	}
	if known {
		return nil
	}
	keys := x.sh.Keys(e.Signature, func(spot uint64) uint32 { return df[spot] })
	args := []any{x.prefix, e.ID, e.Cluster, appendRecord(nil, &e), hashArg(&e), keys.HeadClass, lshindex.HeadListCap}
	if keys.Tokens > 0 {
		args = append(args, len(keys.Bands))
		for b, k := range keys.Bands {
			args = append(args, bandArg(b, k))
		}
	} else {
		args = append(args, 0)
	}
	args = append(args, len(keys.HeadTokens))
	for _, t := range keys.HeadTokens {
		args = append(args, hexKey(t))
	}
	args = append(args, len(spots))
	for _, s := range spots {
		args = append(args, hexKey(s))
	}
	added, err := addScript.Run(ctx, x.rdb, nil, args...).Int()
	if err != nil {
		return failed("add", err)
	}
	x.n.Add(int64(added))
	return nil
}

// frequencies reads, in one round trip, whether id is indexed and the
// document frequencies of spots.
func (x *Index) frequencies(ctx context.Context, id uint64, spots []uint64) (df map[uint64]uint32, known bool, err error) {
	pipe := x.rdb.Pipeline()
	exists := pipe.Exists(ctx, x.prefix+"e:"+strconv.FormatUint(id, 10))
	var vals *redis.SliceCmd
	if len(spots) > 0 {
		fields := make([]string, len(spots))
		for i, s := range spots {
			fields[i] = hexKey(s)
		}
		vals = pipe.HMGet(ctx, x.prefix+"df", fields...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, false, err
	}
	if exists.Val() > 0 {
		return nil, true, nil
	}
	df = map[uint64]uint32{}
	if vals == nil {
		return df, false, nil
	}
	for i, v := range vals.Val() {
		if s, ok := v.(string); ok {
			n, err := strconv.ParseUint(s, 10, 32)
			if err != nil {
				return nil, false, fmt.Errorf("document frequency %q: %w", s, err)
			}
			df[spots[i]] = uint32(n)
		}
	}
	return df, false, nil
}

// Remove implements dedup.Index.
func (x *Index) Remove(ctx context.Context, id uint64) error {
	d, err := x.rdb.HGet(ctx, x.prefix+"e:"+strconv.FormatUint(id, 10), "d").Bytes()
	if err == redis.Nil {
		return nil
	}
	if err != nil {
		return failed("remove", err)
	}
	e := dedup.Entry{ID: id}
	if err := decodeRecord(d, &e); err != nil {
		return failed("remove", fmt.Errorf("entry %d: %w", id, err))
	}
	args := []any{x.prefix, id, hashArg(&e)}
	if len(e.Signature) > 0 {
		for b, k := range x.sh.Keys(e.Signature, func(uint64) uint32 { return 0 }).Bands {
			args = append(args, bandArg(b, k))
		}
	}
	removed, err := removeScript.Run(ctx, x.rdb, nil, args...).Int()
	if err != nil {
		return failed("remove", err)
	}
	x.n.Add(-int64(removed))
	return nil
}

// Count reads the number of entries every process has indexed (Len
// returns it until the next Count, with this value's own adds and removes
// since).
func (x *Index) Count(ctx context.Context) (int, error) {
	n, err := x.rdb.Get(ctx, x.prefix+"n").Int()
	if err == redis.Nil {
		n, err = 0, nil
	}
	if err != nil {
		return 0, failed("count", err)
	}
	x.n.Store(int64(n))
	return n, nil
}

// Len implements dedup.Index without a round trip: the number of entries
// as of the last Count (New makes one), plus this value's own adds and
// removes since; other processes' are seen at the next Count.
func (x *Index) Len() int { return int(x.n.Load()) }

// MergeClusters implements dedup.Index.
func (x *Index) MergeClusters(ctx context.Context, into uint64, from []uint64) error {
	args := []any{x.prefix, into}
	for _, f := range from {
		args = append(args, f)
	}
	if err := mergeScript.Run(ctx, x.rdb, nil, args...).Err(); err != nil {
		return failed("merge clusters", err)
	}
	return nil
}

// ClusterOf implements dedup.Index.
func (x *Index) ClusterOf(ctx context.Context, cluster uint64) (uint64, error) {
	s, err := x.rdb.HGet(ctx, x.prefix+"m", strconv.FormatUint(cluster, 10)).Result()
	if err == redis.Nil {
		return cluster, nil
	}
	if err != nil {
		return 0, failed("cluster of", err)
	}
	into, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, failed("cluster of", fmt.Errorf("cluster %d merged into %q: %w", cluster, s, err))
	}
	return into, nil
}
