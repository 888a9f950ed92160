package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/dedup/redisindex"
)

// The candidate stages an engine can be built over (config dedup.index,
// the dedup command's and the lab's --index).
const (
	// DefaultIndex is the candidate stage when the config names none:
	// MinHash-LSH with a head index for briefs (package dedup/lshindex).
	DefaultIndex = "lsh"
	// PrefixIndex is exact prefix filtering (dedup.PrefixIndex).
	PrefixIndex = "prefix"
	// ExhaustiveIndex is dedup.MemoryIndex, the reference: Hamming tables
	// and the exhaustive SpotSigs inverted index.
	ExhaustiveIndex = "exhaustive"
	// RedisIndex is the dedup.index of crawls that share their dedup
	// index in Redis (package dedup/redisindex; needs redis: and a
	// postgres:// store).
	RedisIndex = "redis"
)

// sharedIndex is where an index shared in Redis lives: the client (the
// caller keeps and closes it), the key prefix of the corpus, and the
// context bounding its opening checks.
type sharedIndex struct {
	ctx    context.Context
	rdb    *redis.Client
	prefix string
}

// newIndexFunc is the one constructor of an engine's candidate index: the
// dedup.Options.NewIndex that builds the stage named (DefaultIndex for
// ""), for the engine's thresholds. RedisIndex needs sh (a crawl's, see
// newRedisEngine); the others are in process.
func newIndexFunc(name string, sh *sharedIndex) (func(q dedup.Query) (dedup.Index, error), error) {
	switch name {
	case "", DefaultIndex:
		return func(q dedup.Query) (dedup.Index, error) {
			x, err := lshindex.New(lshConfig(q))
			if err != nil {
				return nil, err
			}
			return x, nil
		}, nil
	case PrefixIndex:
		return func(q dedup.Query) (dedup.Index, error) {
			x, err := dedup.NewPrefixIndex(q.Jaccard, q.Containment)
			if err != nil {
				return nil, err
			}
			return x, nil
		}, nil
	case ExhaustiveIndex:
		return dedup.NewExhaustiveIndex, nil
	case RedisIndex:
		if sh == nil {
			return nil, fmt.Errorf("%q: the index shared in Redis is a crawl's (with redis: and a postgres:// store); this command needs lsh, prefix or exhaustive", name)
		}
		return func(q dedup.Query) (dedup.Index, error) {
			x, err := redisindex.New(sh.ctx, sh.rdb, sh.prefix, lshConfig(q))
			if err != nil {
				return nil, fmt.Errorf("dedup index in redis: %w", err)
			}
			return x, nil
		}, nil
	}
	return nil, fmt.Errorf("unknown candidate index %q (lsh, prefix, exhaustive or redis)", name)
}

// lshConfig is the configuration of the LSH stage (in process or in
// Redis) answering the engine's queries q.
func lshConfig(q dedup.Query) lshindex.Config {
	return lshindex.Config{Jaccard: q.Jaccard, Containment: max(q.Containment, 0), MinContainment: dedup.MinContainmentSpots}
}

// SetIndex selects the candidate stage of o by name (config dedup.index,
// the dedup command's and the lab's --index): lsh, prefix or exhaustive;
// "" is DefaultIndex. The index shared in Redis is a crawl's only.
func SetIndex(o *dedup.Options, name string) error {
	f, err := newIndexFunc(name, nil)
	if err != nil {
		return err
	}
	o.NewIndex = f
	return nil
}

// coldSpiller is an index that can keep its entries' cold data (the
// winnowing prints, read only for the candidates it returns) in a file
// instead of the heap (lshindex.Index.SpillCold).
type coldSpiller interface {
	SpillCold(dir string) error
}

// runEngineOptions is EngineOptions for a run over cfg's store (a crawl's
// or an import's engine): an index that can spills the cold data of the
// entries it adds to unlinked temporary files next to the store (a SQLite
// store's directory, which the run writes anyway), or in the temporary
// directory (a PostgreSQL store, or a store whose directory does not
// exist), read back through the page cache, so that the process's memory
// does not grow with them. An index that can spill to neither keeps them
// in memory, and the returned spillNote says why (the start-up line
// reports it: IndexLoad.Spill).
func runEngineOptions(cfg *config.Config) (dedup.Options, *spillNote, error) {
	note := &spillNote{}
	o, err := EngineOptions(cfg.Dedup)
	if err != nil || o.NewIndex == nil {
		return o, note, err
	}
	dirs := []string{os.TempDir()}
	if !IsPostgres(cfg.Storage) {
		dirs = append([]string{filepath.Dir(cfg.Storage)}, dirs...)
	}
	newIndex := o.NewIndex
	o.NewIndex = func(q dedup.Query) (dedup.Index, error) {
		x, err := newIndex(q)
		if err != nil {
			return nil, err
		}
		s, ok := x.(coldSpiller)
		if !ok {
			return x, nil
		}
		var errs []error
		for _, dir := range dirs {
			if err := s.SpillCold(dir); err != nil {
				errs = append(errs, err)
				continue
			}
			return x, nil
		}
		note.set(fmt.Sprintf("cold data in memory: %v", errors.Join(errs...)))
		return x, nil
	}
	return o, note, nil
}

// spillNote records why an index built by runEngineOptions keeps its
// cold data in memory ("" when every index spilled).
type spillNote struct {
	mu  sync.Mutex
	msg string
}

func (n *spillNote) set(msg string) {
	n.mu.Lock()
	n.msg = msg
	n.mu.Unlock()
}

func (n *spillNote) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.msg
}
