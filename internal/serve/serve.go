// Package serve is a read-only web view of a store for the people who
// curate the corpus: runs, sites, search by title, a cluster with all its
// members, an article next to its duplicate with the passages both share
// highlighted (internal/passages), and the explanation of a verdict
// (internal/explain).
//
// Nothing it serves writes: every route is GET (HEAD), any other method is
// answered 405. Stored text is untrusted (it comes from the web): every page
// is rendered by html/template, which escapes it for its context, and the
// Content-Security-Policy header allows no script at all. The server binds
// to loopback by default (DefaultAddr).
package serve

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/passages"
	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/storage"
)

// DefaultAddr is where serve listens unless told otherwise: loopback only,
// since the view has no authentication.
const DefaultAddr = "127.0.0.1:8080"

// MaxResults caps the rows of a search or a cluster listing.
const MaxResults = 500

// Store is what the view reads. storage.Store satisfies it.
type Store interface {
	explain.Store
	Runs(ctx context.Context) ([]storage.Run, error)
	Pages(ctx context.Context, fn func(storage.Page) error) error
}

//go:embed templates/*.html
var templateFS embed.FS

// Handler serves the view of one store.
type Handler struct {
	store Store
	th    explain.Thresholds
	log   *slog.Logger
	tmpl  *template.Template
	mux   *http.ServeMux
}

// New returns the handler for s. th are the thresholds shown next to
// verdicts (explain.Default() unless the crawl's config changed them); log
// receives server-side errors (nil: discarded).
func New(s Store, th explain.Thresholds, log *slog.Logger) (*Handler, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t, err := template.New("").Funcs(template.FuncMap{
		"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
		"f3":   func(f float64) string { return fmt.Sprintf("%.3f", f) },
		"time": fmtTime,
		"paras": func(s string) []string {
			return strings.Split(s, "\n")
		},
		"missing": func(missing []string, u string) bool { return slices.Contains(missing, u) },
		"totals":  progress.RunCounts, // a run's totals with gone pages apart from errors
		"pathesc": url.PathEscape,
		"reason": func(s string) string {
			if s == "" {
				return "not recorded"
			}
			return s
		},
	}).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("serve: templates: %w", err)
	}
	h := &Handler{store: s, th: th, log: log, tmpl: t, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /search", h.search)
	h.mux.HandleFunc("GET /run/{id}", h.run)
	h.mux.HandleFunc("GET /cluster/{id}", h.cluster)
	h.mux.HandleFunc("GET /article/{id}", h.article)
	h.mux.HandleFunc("GET /pair", h.pair)
	h.mux.HandleFunc("GET /site/{name}", h.site)
	h.mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		h.errorPage(w, r, http.StatusNotFound, "no page at "+r.URL.Path)
	})
	return h, nil
}

// ServeHTTP implements http.Handler: only GET and HEAD are answered.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only view: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	var b strings.Builder
	if err := h.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, storage.ErrNotFound) {
		h.errorPage(w, r, http.StatusNotFound, "not found")
		return
	}
	h.log.Error("serve", "path", r.URL.Path, "err", err)
	http.Error(w, "internal error (see the server log)", http.StatusInternalServerError)
}

// SiteRow counts a site's page outcomes over all runs, named and counted
// as the crawl's summary counts them: Errors are failures of the site or
// the network, Gone the pages a 4xx answered (progress.IsGone).
type SiteRow struct {
	Site                                                string
	Pages, Stored, Duplicates, NotArticle, Errors, Gone int
	Parts                                               int // later pages of multi-page articles
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	runs, err := h.store.Runs(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	slices.Reverse(runs) // newest first
	sites := map[string]*SiteRow{}
	err = h.store.Pages(ctx, func(p storage.Page) error {
		s := sites[p.Site]
		if s == nil {
			s = &SiteRow{Site: p.Site}
			sites[p.Site] = s
		}
		s.Pages++
		switch p.Outcome {
		case storage.OutcomeStored:
			s.Stored++
		case storage.OutcomeDuplicate:
			s.Duplicates++
		case storage.OutcomeNotArticle:
			s.NotArticle++
		case storage.OutcomeError:
			if progress.IsGone(p.ErrKind) {
				s.Gone++
			} else {
				s.Errors++
			}
		case storage.OutcomePart:
			s.Parts++
		}
		return nil
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var rows []SiteRow
	for _, s := range sites {
		rows = append(rows, *s)
	}
	slices.SortFunc(rows, func(a, b SiteRow) int { return cmp.Compare(a.Site, b.Site) })
	h.render(w, r, "index.html", map[string]any{"Runs": runs, "Sites": rows})
}

// Hit is a search result or a cluster member.
type Hit struct {
	ID      int64 // article id; 0 for a duplicate
	URL     string
	Site    string
	Title   string
	Kept    bool
	Cluster int64
	DupOf   int64
	Reason  string
	Jaccard float64
	RunID   int64
}

// TitleSearcher is a store with a title index (SQLite FTS5 trigram,
// PostgreSQL pg_trgm): /search asks it instead of reading every row. Its
// results are those of the scan: storage.TitleMatches, articles by id then
// duplicates in commit order, at most limit.
type TitleSearcher interface {
	SearchTitles(ctx context.Context, q string, limit int) (hits []storage.TitleHit, more bool, err error)
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	var hits []Hit
	more := false
	if q != "" {
		var err error
		if ts, ok := h.store.(TitleSearcher); ok {
			hits, more, err = searchIndex(r.Context(), ts, q)
		} else {
			hits, more, err = h.collect(r.Context(), func(x Hit) bool { return storage.TitleMatches(x.Title, q) })
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, "search.html", map[string]any{"Q": q, "Hits": hits, "More": more, "Max": MaxResults})
}

// searchIndex is a title search through the store's index.
func searchIndex(ctx context.Context, ts TitleSearcher, q string) ([]Hit, bool, error) {
	found, more, err := ts.SearchTitles(ctx, q, MaxResults)
	if err != nil {
		return nil, false, err
	}
	hits := make([]Hit, len(found))
	for i, x := range found {
		hits[i] = Hit{ID: x.ID, URL: x.URL, Site: x.Site, Title: x.Title, Kept: x.ID != 0, Cluster: x.Cluster,
			DupOf: x.DupOf, Reason: x.Reason, Jaccard: x.Jaccard, RunID: x.RunID}
	}
	return hits, more, nil
}

var errEnough = errors.New("enough results")

// collect returns the articles, then duplicates, that keep selects, at most
// MaxResults (more reports that there were more).
func (h *Handler) collect(ctx context.Context, keep func(Hit) bool) (hits []Hit, more bool, err error) {
	add := func(x Hit) error {
		if !keep(x) {
			return nil
		}
		if len(hits) == MaxResults {
			more = true
			return errEnough
		}
		hits = append(hits, x)
		return nil
	}
	err = h.store.Articles(ctx, func(a storage.Article) error {
		return add(Hit{ID: a.ID, URL: a.URL, Site: a.Site, Title: a.Title, Kept: true, Cluster: a.Cluster, RunID: a.RunID})
	})
	if err == nil {
		err = h.store.Duplicates(ctx, func(d storage.Duplicate) error {
			return add(Hit{URL: d.URL, Site: d.Site, Title: d.Title, Cluster: d.Cluster, DupOf: d.DupOf, Reason: d.Reason, Jaccard: d.Jaccard, RunID: d.RunID})
		})
	}
	if errors.Is(err, errEnough) {
		err = nil
	}
	return hits, more, err
}

// site lists the stored articles, then the duplicates, of one site.
func (h *Handler) site(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	hits, more, err := h.collect(r.Context(), func(x Hit) bool { return x.Site == name })
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(hits) == 0 {
		h.errorPage(w, r, http.StatusNotFound, "no article or duplicate of a site named "+strconv.Quote(name))
		return
	}
	h.render(w, r, "site.html", map[string]any{"Site": name, "Hits": hits, "More": more, "Max": MaxResults})
}

// errorPage answers status with msg on a page of the view, which links
// back to the overview.
func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	var b strings.Builder
	if err := h.tmpl.ExecuteTemplate(&b, "error.html", map[string]any{"Status": status, "Text": http.StatusText(status), "Msg": msg}); err != nil {
		h.log.Error("serve", "path", r.URL.Path, "err", err)
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func (h *Handler) cluster(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.errorPage(w, r, http.StatusBadRequest, "bad cluster id")
		return
	}
	hits, more, err := h.collect(r.Context(), func(x Hit) bool { return x.Cluster == id })
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(hits) == 0 {
		h.errorPage(w, r, http.StatusNotFound, "no such cluster")
		return
	}
	h.render(w, r, "cluster.html", map[string]any{"ID": id, "Hits": hits, "More": more, "Max": MaxResults})
}

func (h *Handler) article(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.errorPage(w, r, http.StatusBadRequest, "bad article id")
		return
	}
	a, err := h.store.Article(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var dups []storage.Duplicate
	err = h.store.Duplicates(r.Context(), func(d storage.Duplicate) error {
		if d.DupOf == id && len(dups) < MaxResults {
			dups = append(dups, d)
		}
		return nil
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var related []explain.Related
	if r.URL.Query().Get("related") == "1" {
		// Every stored fingerprint is read: on request only, so that
		// the article page stays one lookup on a large store.
		if related, err = explain.FindRelated(r.Context(), h.store, &a); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, "article.html", map[string]any{"A": a, "Dups": dups, "Related": related, "Asked": r.URL.Query().Get("related") == "1"})
}

func (h *Handler) pair(w http.ResponseWriter, r *http.Request) {
	u := r.URL.Query().Get("url")
	if u == "" {
		h.errorPage(w, r, http.StatusBadRequest, "missing url parameter")
		return
	}
	e, err := explain.Explain(r.Context(), h.store, u, h.th)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if e.Duplicate == nil {
		h.errorPage(w, r, http.StatusNotFound, "not a duplicate: "+string(e.Page.Outcome))
		return
	}
	left, right := passages.Mark(e.Duplicate.Text, e.Original.Text)
	if !e.TextKept {
		left, right = nil, []passages.Segment{{Text: e.Original.Text}}
	}
	h.render(w, r, "pair.html", map[string]any{"E": e, "Left": lines(left), "Right": lines(right)})
}

// lines splits segments at newlines, so that paragraphs render as such.
func lines(segs []passages.Segment) [][]passages.Segment {
	var out [][]passages.Segment
	var cur []passages.Segment
	for _, s := range segs {
		parts := strings.Split(s.Text, "\n")
		for i, p := range parts {
			if i > 0 {
				out = append(out, cur)
				cur = nil
			}
			if p != "" {
				cur = append(cur, passages.Segment{Text: p, Shared: s.Shared})
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// counterRow is one counter of a run, per site.
type counterRow struct {
	Name   string
	Values []int64
}

func (h *Handler) run(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.errorPage(w, r, http.StatusBadRequest, "bad run id")
		return
	}
	runs, err := h.store.Runs(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	i := slices.IndexFunc(runs, func(x storage.Run) bool { return x.ID == id })
	if i < 0 {
		h.errorPage(w, r, http.StatusNotFound, "no such run")
		return
	}
	run := runs[i]
	names := map[string]bool{}
	var sites []string
	for _, s := range run.Stats.Sites {
		sites = append(sites, s.Site)
		for k := range s.Counters {
			names[k] = true
		}
	}
	var rows []counterRow
	for _, n := range slices.Sorted(maps.Keys(names)) {
		row := counterRow{Name: n}
		for _, s := range run.Stats.Sites {
			row.Values = append(row.Values, s.Counters[n])
		}
		rows = append(rows, row)
	}
	hits, more, err := h.collect(r.Context(), func(x Hit) bool { return x.RunID == id })
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, "run.html", map[string]any{"Run": run, "Sites": sites, "Rows": rows, "Hits": hits, "More": more, "Max": MaxResults})
}
