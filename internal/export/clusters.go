package export

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// ClusterSource is what the cluster view of an export reads besides
// Source: every copy's fingerprint row (without text) and the runs, whose
// settings carry the sites' source_names. storage.Store satisfies it; an
// export from a Source without it has no cluster view (representative
// true, original_source and copies null on every record).
type ClusterSource interface {
	Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error
	DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error
	Runs(ctx context.Context) ([]storage.Run, error)
}

// Copy is one copy of a cluster in an export's copies list: its site,
// URL, 来源, publication time and verdict ("kept", "partial", or the
// duplicate's reason).
type Copy struct {
	Site        string  `json:"site"`
	URL         string  `json:"url"`
	Source      string  `json:"source"`
	PublishedAt *string `json:"published_at"`
	Verdict     string  `json:"verdict"`
	published   time.Time
}

// cluster is one cluster of two or more copies: its copies in
// representative order (the representative first) and its 来源.
type cluster struct {
	copies []Copy
	source string
	rep    string // the representative's URL (copies[0] once sorted)
	// slim: the copies were let go to bound an export's memory
	// (clusterReads); rep and source still hold.
	slim bool
}

// Clusters is the cluster view of a store: for every cluster of two or
// more copies (stored articles and duplicates), its representative, its
// 来源 and its copies.
type Clusters struct {
	byID map[int64]*cluster
}

// LoadClusters reads the cluster view of src. A cluster's representative
// is its original (Representative); the sites' source_names are those
// the store's runs recorded (a later run's list of a site replaces an
// earlier one's).
func LoadClusters(ctx context.Context, src ClusterSource) (*Clusters, error) {
	names, err := sourceNames(ctx, src)
	if err != nil {
		return nil, err
	}
	cs := &Clusters{byID: map[int64]*cluster{}}
	get := func(id int64) *cluster {
		c := cs.byID[id]
		if c == nil {
			c = &cluster{}
			cs.byID[id] = c
		}
		return c
	}
	// Clusters of more than one copy: those with a duplicate or with an
	// article that joined another article's cluster.
	err = src.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		if a.Cluster != a.ID {
			get(a.Cluster)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	err = src.DuplicateFingerprints(ctx, time.Time{}, func(d storage.Duplicate) error {
		c := get(d.Cluster)
		c.copies = append(c.copies, copyOf(d.Site, d.URL, d.Source, d.PublishedAt, orReason(d.Reason)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	err = src.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		c := cs.byID[a.Cluster]
		if c == nil {
			return nil
		}
		c.copies = append(c.copies, copyOf(a.Site, a.URL, a.Source, a.PublishedAt, storedVerdict(a.PartialOf)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	for _, c := range cs.byID {
		c.choose(names)
	}
	return cs, nil
}

// choose orders c's copies with its representative first
// (Representative) and records it and the cluster's 来源.
func (c *cluster) choose(names map[string][]string) {
	c.source = Representative(c.copies, names)
	if len(c.copies) > 0 {
		c.rep = c.copies[0].URL
	}
}

// copyOf is a cluster's copy.
func copyOf(site, url, source string, published time.Time, verdict string) Copy {
	return Copy{Site: site, URL: url, Source: strings.TrimSpace(source),
		PublishedAt: timePtr(published), Verdict: verdict, published: published}
}

// storedVerdict is a stored article's verdict in its cluster.
func storedVerdict(partialOf int64) string {
	if partialOf != 0 {
		return "partial"
	}
	return "kept"
}

// orReason is a duplicate's verdict: its reason, "duplicate" when the
// store kept none.
func orReason(r string) string {
	if r == "" {
		return "duplicate"
	}
	return r
}

// sourceNames merges the source_names the runs recorded, in run order.
func sourceNames(ctx context.Context, src ClusterSource) (map[string][]string, error) {
	runs, err := src.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("clusters: runs: %w", err)
	}
	slices.SortFunc(runs, func(a, b storage.Run) int { return cmp.Compare(a.ID, b.ID) })
	out := map[string][]string{}
	for _, r := range runs {
		if r.Stats.Settings == nil {
			continue
		}
		for site, ns := range r.Stats.Settings.SourceNames {
			out[site] = ns
		}
	}
	return out, nil
}

// Representative orders copies so that the cluster's original comes
// first and returns the cluster's 来源: the most frequent 来源 among the
// copies (ties: the smaller string; "" when none names one). The
// original is the copy whose site publishes under that 来源
// (names[site], a site's source_names), else the earliest published
// (copies without a time last), and among equals the smallest URL. The
// order depends only on the copies, never on the order they were crawled
// or stored in: the same pages crawled in any order give the same
// representative. (The first stored copy would depend on the crawl.)
func Representative(copies []Copy, names map[string][]string) string {
	count := map[string]int{}
	source := ""
	for _, c := range copies {
		if c.Source == "" {
			continue
		}
		count[c.Source]++
		if n := count[c.Source]; n > count[source] || (n == count[source] && c.Source < source) {
			source = c.Source
		}
	}
	own := func(c Copy) int {
		if source != "" && slices.Contains(names[c.Site], source) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(copies, func(a, b Copy) int {
		if o := cmp.Compare(own(a), own(b)); o != 0 {
			return o
		}
		if az, bz := a.published.IsZero(), b.published.IsZero(); az != bz {
			if az {
				return 1
			}
			return -1
		}
		if o := a.published.Compare(b.published); o != 0 {
			return o
		}
		return cmp.Compare(a.URL, b.URL)
	})
	return source
}

// annotate sets r's cluster fields: representative, original_source and,
// on the representative, the cluster's copies. A copy outside every
// cluster of two or more is its own representative.
func (cs *Clusters) annotate(r *Record, ownSource string) {
	var c *cluster
	if cs != nil {
		c = cs.byID[r.Cluster]
	}
	c.annotate(r, ownSource)
}

// annotate sets r's cluster fields from c, r's cluster (nil: none of two
// or more copies).
func (c *cluster) annotate(r *Record, ownSource string) {
	rep := true
	r.Representative = &rep
	if c == nil || c.rep == "" {
		if s := strings.TrimSpace(ownSource); s != "" {
			r.OriginalSource = &s
		}
		return
	}
	if c.source != "" {
		s := c.source
		r.OriginalSource = &s
	}
	rep = c.rep == r.URL
	if rep {
		r.Copies = c.copies
	}
}

// ClusterLookup is a store that counts its clusters and reads one at a
// time (storage/sqlite, storage/postgres, storage/memory): ClusterSizes
// calls fn for the clusters holding a stored article in ascending id
// order first; ClusterMembers calls fn for a cluster's members. An
// export from it reads the copies of a record's cluster when it writes
// the record, keeping the last clusters read up to cachedCopies copies,
// instead of loading the cluster view of the whole store first
// (LoadClusters), so its memory does not grow with the store.
type ClusterLookup interface {
	ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error
	ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error
}

// What an export from a ClusterLookup keeps of the clusters it read, the
// least recently used let go first: every record of a cluster needs its
// representative and 来源 (cachedClusters of them are kept, about 100
// bytes each), and only the representative's record its copies
// (cachedCopies of them are kept; the cluster used last keeps its copies
// whatever their number). A cluster's members are read again only when
// it comes back after cachedClusters others, or when its representative
// is written after its copies were let go: a cluster of n copies whose
// duplicates are spread among others' is read about once, not n times.
const (
	cachedClusters = 1 << 16
	cachedCopies   = 4096
)

// clusterReads is the cluster view of an export from a ClusterLookup.
type clusterReads struct {
	src   ClusterLookup
	names map[string][]string
	byID  map[int64]*list.Element // of lru
	lru   *list.List              // *heldCluster, least recently used first
	held  int                     // copies held by the clusters of lru
	// sizes pulls the counts of the clusters of the articles, in id
	// order, in step with the articles (also in id order); size is the
	// last pulled.
	sizes func() (storage.ClusterSize, error, bool)
	size  storage.ClusterSize
	stop  func()
}

// errStopSizes ends the stream of cluster sizes when the export is done.
var errStopSizes = errors.New("export: cluster sizes no longer needed")

func newClusterReads(ctx context.Context, src ClusterLookup, runs ClusterSource) (*clusterReads, error) {
	names, err := sourceNames(ctx, runs)
	if err != nil {
		return nil, err
	}
	cr := &clusterReads{src: src, names: names, byID: map[int64]*list.Element{}, lru: list.New()}
	cr.sizes, cr.stop = iter.Pull2(func(yield func(storage.ClusterSize, error) bool) {
		err := src.ClusterSizes(ctx, func(c storage.ClusterSize) error {
			if !yield(c, nil) {
				return errStopSizes
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopSizes) {
			yield(storage.ClusterSize{}, err)
		}
	})
	return cr, nil
}

// close ends the stream of cluster sizes.
func (cr *clusterReads) close() { cr.stop() }

// alone reports whether the stored article id, which names its own
// cluster, is its cluster's only copy. ids must come in ascending order.
func (cr *clusterReads) alone(id int64) (bool, error) {
	for cr.size.ID < id {
		c, err, ok := cr.sizes()
		if err != nil {
			return false, fmt.Errorf("clusters: %w", err)
		}
		if !ok || c.Articles == 0 { // past the clusters of the articles
			cr.size = storage.ClusterSize{ID: math.MaxInt64}
			break
		}
		cr.size = c
	}
	return cr.size.ID != id || cr.size.Size() <= 1, nil
}

// of returns the cluster of a record in cluster id (article: the stored
// article's id, in ascending order; 0 for a duplicate), nil when it is a
// cluster of one copy. As LoadClusters, a cluster counts when it holds a
// duplicate or an article that joined it; an article naming its own
// cluster is then alone unless the cluster holds more. url is the
// record's: the representative's record gets the copies, read again when
// they were let go.
func (cr *clusterReads) of(ctx context.Context, id, article int64, url string) (*cluster, error) {
	if article == id {
		if alone, err := cr.alone(id); alone || err != nil {
			return nil, err
		}
	}
	if e, ok := cr.byID[id]; ok {
		cr.lru.MoveToBack(e)
		h := e.Value.(*heldCluster)
		if !h.c.slim || h.c.rep != url {
			return h.c, nil
		}
		// The representative's record, after its copies were let go.
		cr.lru.Remove(e)
		delete(cr.byID, id)
	}
	c, err := cr.read(ctx, id)
	if err != nil {
		return nil, err
	}
	cr.hold(id, c)
	return c, nil
}

// heldCluster is an entry of clusterReads.lru.
type heldCluster struct {
	id int64
	c  *cluster
}

// read reads the members of cluster id and chooses its representative.
func (cr *clusterReads) read(ctx context.Context, id int64) (*cluster, error) {
	c := &cluster{}
	err := cr.src.ClusterMembers(ctx, id, func(m storage.ClusterMember) error {
		verdict := orReason(m.Reason)
		if m.ID != 0 {
			verdict = storedVerdict(m.PartialOf)
		}
		c.copies = append(c.copies, copyOf(m.Site, m.URL, m.Source, m.PublishedAt, verdict))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	c.choose(cr.names)
	return c, nil
}

// hold keeps c as the most recently used cluster, and lets go of the
// copies, then the clusters, least recently used beyond the bounds.
func (cr *clusterReads) hold(id int64, c *cluster) {
	cr.byID[id] = cr.lru.PushBack(&heldCluster{id: id, c: c})
	cr.held += len(c.copies)
	for e := cr.lru.Front(); e != nil && e != cr.lru.Back() && cr.held > cachedCopies; e = e.Next() {
		if h := e.Value.(*heldCluster); !h.c.slim {
			cr.held -= len(h.c.copies)
			h.c.copies, h.c.slim = nil, true
		}
	}
	for cr.lru.Len() > cachedClusters {
		h := cr.lru.Remove(cr.lru.Front()).(*heldCluster)
		cr.held -= len(h.c.copies)
		delete(cr.byID, h.id)
	}
}
