package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// exitCodesHelp is printed at the end of every command's help.
const exitCodesHelp = `Exit codes: 0 done (page errors are counted, not fatal); 1 failure (storage, I/O);
2 bad flags or invalid config; 3 another crawl holds the store's lock;
4 the crawl could fetch nothing at all (every host unreachable, every start
page failing); 5 no store at --db to read (run crawl, import or migrate
first) or one written by a newer program; 6 the crawl stopped with URLs
left (--max-time, or PostgreSQL or Redis unreachable for longer than
fleet.outage_limit); 130 interrupted by SIGINT (143 for SIGTERM).`

// doc is a command's help: what it does and an example.
type doc struct {
	args        string // after the flags, e.g. "URL"
	description string
	examples    []string
}

// docs are the help texts of the commands, by name.
var docs = map[string]doc{
	"crawl": {"", `Crawls every site of the site file (or --only some of them) into the store:
fetch, decode, extract, dedup, store. Progress goes to stderr every
--progress interval (0: none), the per-site summary to stdout at the end.
A SQLite store is locked for the run; a second crawl on it exits with code
3 unless --wait is given. A postgres:// store takes several crawls at once,
on one machine or many, which share its frontier and dedup decisions;
with --redis (or redis: in the site file) they share a Redis frontier, host
politeness (delays and Crawl-delay kept by all processes together) and one
robots.txt fetch per host.`, []string{
		"newscrawl crawl --site configs/sites.yaml",
		"newscrawl crawl --site configs/sites.yaml --db postgres://newscrawl@db.internal/news --redis redis://queue.internal:6379/0",
		"newscrawl crawl --site configs/sites.yaml --only sina,qq --progress 0 -v --log-format json",
		"newscrawl crawl --site configs/sites.yaml --metrics-addr 127.0.0.1:9464"}},
	"export": {"", `Writes the store's decisions: one record per decided article URL, stored
articles first, then duplicates with their evidence and reason. Every
record has every key (null where it does not apply) and its run_id.
Formats: jsonl (the format ../shared/bench/score.py reads, and import and
dedup --in read back), csv (RFC 4180, header row; --bom for Excel), warc
(WARC/1.1: a resource and a metadata record per stored article, or the
response as fetched with fetch.keep_raw, a revisit record per duplicate;
.gz output is gzipped per record).`, []string{
		"newscrawl export --db data/news.db --out corpus.jsonl",
		"newscrawl export --db data/news.db --format csv --kept-only --out corpus.csv",
		"newscrawl export --db data/news.db --format csv --bom --out corpus-excel.csv",
		"newscrawl export --db data/news.db --format warc --run 12 --out run12.warc.gz",
		"newscrawl export --db data/news.db --since 24h"}},
	"migrate": {"", `Copies a SQLite store into an empty PostgreSQL database in one transaction:
runs, pages, articles, duplicate verdicts, document frequencies and kept
raw responses, with their ids, clusters and commit order, so that export
prints the same records. The source must not be locked by a crawl (exit
3); the target schema must hold no corpus yet. The frontier is not copied.
A postgres:// URL then works wherever --db or storage: takes a store, and
several crawls may run on it at once.`, []string{
		"newscrawl migrate --from data/news.db --to postgres://newscrawl@db.internal:5432/news",
		"newscrawl migrate --from data/news.db --to 'postgres://newscrawl@db.internal/news?search_path=corpus'"}},
	"discover": {"", `Fetches each site's list surfaces once and prints what each yields: its
start pages (links, and article URLs inside their inline scripts), the
sitemaps named by the robots.txt of its hosts, its sitemaps (with the
sitemaps of an index), feeds and APIs (every page). Per source: URLs found,
matched (in allowed_domains and matching article_url or follow_url), articles
(matching article_url), new (not decided in the store yet) and decided,
and the others skipped by reason (off_domain, no_match, bad_url, robots,
url_length, trap, seen: listed by an earlier source). Requests are polite as
a crawl's (robots.txt, delays, Crawl-delay, retries, body limits); no article
is fetched and nothing is written. The store (--db, or the site file's) is
opened read-only when it exists; without one every URL counts as new. The
command to run while writing a site entry.`, []string{
		"newscrawl discover --site configs/sites.yaml --only qq",
		"newscrawl discover --site mysite.yaml --db data/news.db --json"}},
	"explain": {"URL", `Explains the decision about one URL (as stored: canonical form): for a
duplicate, the stored article it matched, the Hamming distance, Jaccard,
containment and title overlap with the thresholds that applied, and the
passages both texts share; for a stored article, its cluster; for any other
page, its outcome and error.`, []string{
		"newscrawl explain --db data/news.db https://www.sohu.com/a/123456_789",
		"newscrawl explain --db postgres://newscrawl@db.internal/news https://www.sohu.com/a/123456_789"}},
	"report": {"", `Writes one self-contained HTML page about the store (no script, no
external asset): per run and per site stored/duplicates/errors, cluster
sizes, Jaccard and Hamming histograms of the duplicate verdicts with the
thresholds marked, the largest clusters and the error kinds.`, []string{
		"newscrawl report --db data/news.db --out report.html"}},
	"status": {"", `Prints the latest fleet run: the runs of the crawl or import processes
that ran together on the store (runs overlapping in time), the pages they
recorded counted from the store (each URL once, whichever process decided
it) beside the sum of the finished runs' own summaries, and the frontier
URLs left.`, []string{
		"newscrawl status --db postgres://newscrawl@db.internal/news"}},
	"serve": {"", `Serves a read-only web view of the store: runs, sites, search by title, a
cluster with its members, a duplicate beside its original with the shared
passages highlighted. It listens on loopback unless --addr says otherwise
(the view has no authentication); no endpoint writes.`, []string{
		"newscrawl serve --db data/news.db",
		"newscrawl serve --db data/news.db --addr 127.0.0.1:8081"}},
	"extract": {"FILE_OR_URL", `Prints the article extracted from an HTML file or a URL as JSON, with the
same charset rules as the crawler. A URL is fetched as the crawler fetches
it: user agent, robots.txt, body limit, redirects and meta refreshes kept
on its host (or on the allowed_domains of the --site site covering it).
Flags may come before or after FILE_OR_URL; --remove is repeatable.`, []string{
		"newscrawl extract page.html", "newscrawl extract https://news.sina.com.cn/c/2026-11-20/doc-abc.shtml",
		"newscrawl extract --site configs/sites.yaml https://news.sina.com.cn/c/2026-11-20/doc-abc.shtml"}},
	"dedup": {"", `Clusters documents offline: a JSONL file of {"id","title","text"} lines
(a line without "text", with an unknown key or a repeated id is an error
naming the line) or a directory of HTML pages (extracted first). Writes one
line per document: cluster, kept, dup_of, evidence and reason. JSONL input
is streamed: memory does not grow with the input except through the index
and the ids seen; verdicts wait in temporary files until the clusters are
final.`, []string{
		"newscrawl dedup --in corpus.jsonl --out clusters.jsonl",
		"newscrawl dedup --in pages/ --jaccard 0.4"}},
	"import": {"", `Brings an existing corpus into a store through the same
near-duplicate decision as the crawl: one JSON object per line with "url"
(the key), "title", "text" and optional "site" and "published_at" (RFC
3339). A line without "url" or "text", or with an unknown key, is an error
naming the line. Each record is committed as the crawl commits a page;
progress goes to stderr and a summary is printed at the end; a URL decided
before keeps its verdict. A SQLite store commits 2,000 records per
transaction; a postgres:// store commits one record at a time under the
fleet's decision lock, so an import can run beside crawls.`, []string{
		"newscrawl import --in corpus.jsonl --db data/news.db",
		"newscrawl import --in corpus.jsonl --site configs/sites.yaml --progress 0"}},
	"check": {"", `Checks the whole store for damage: a SQLite file is read page by page
(PRAGMA integrity_check, about 30 s at a million articles) and the check recorded,
every store's cross-table invariants are verified, and the index snapshot
is read whole and checked against the store and the dedup options of
--site. A crawl checks only the small tables it writes and says when the
last full check ran (overdue after two days): run check from its own cron
line, daily. Exit 1 when the store is damaged; an unusable snapshot is
reported, not an error (the next crawl rebuilds the index).`, []string{
		"newscrawl check --db data/news.db",
		"newscrawl check --site configs/sites.yaml"}},
	"demo": {"", `Starts the bundled fixture portals on loopback, crawls them into a store in
a temporary directory, prints the kept articles and the duplicates, and
removes the directory at the end (--keep or --dir keeps it and says where).`, []string{
		"newscrawl demo", "newscrawl demo --keep"}},
	"version": {"", `Prints the program's version, the Go version and the VCS revision it was
built from, and where the version came from: the -ldflags -X value of a
release build (go build -ldflags "-X
github.com/newsdedup/newscrawl/internal/cli.linkedVersion=v1.2.3"), else
the module version the toolchain recorded, else (devel).`, []string{"newscrawl version"}},
}

// helpOut is the stderr Main gives a command: it writes to stderr, but
// the help a user asks for (-h) goes to stdout, as the top-level usage does.
type helpOut struct {
	io.Writer // stderr
	stdout    io.Writer
}

// failWriter is a flag set's output: it notes that the flag package
// printed a parse error (which the command returns, and Main prints in one
// line) and discards it.
type failWriter struct{ failed bool }

func (w *failWriter) Write(p []byte) (int, error) { w.failed = true; return len(p), nil }

// newFlags returns the flag set of a command with its help (description,
// example, flags, exit codes) as Usage: printed to stdout when -h asks for
// it (to stderr when stderr is not Main's), and not at all after a parse
// error, which the command returns.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	return FlagSet(name, stderr, func(w io.Writer, fs *flag.FlagSet) { writeHelp(w, name, fs) })
}

// parseInterspersed parses args with flags before, between or after the
// positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func writeHelp(w io.Writer, name string, fs *flag.FlagSet) {
	d := docs[name]
	args := ""
	if d.args != "" {
		args = " " + d.args
	}
	fmt.Fprintf(w, "usage: newscrawl %s [flags]%s\n\n", name, args)
	if d.description != "" {
		fmt.Fprintf(w, "%s\n\n", d.description)
	}
	if len(d.examples) > 0 {
		fmt.Fprintln(w, "Examples:")
		for _, e := range d.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Flags:")
	fs.PrintDefaults()
	fmt.Fprintf(w, "\n%s\n", exitCodesOf(name))
}

// commandExits are the exit codes other than 0 and 2 that each command
// can return: 3 (locked) where it takes or checks a store's lock, 4 for
// the crawl alone, 5 where it opens a store it does not create (or one a
// newer program wrote); interruption where it runs long enough to be
// interrupted. Every command but version can fail (1).
func commandExits(name string) []int {
	switch name {
	case "crawl":
		return []int{ExitFailure, ExitLocked, ExitNothingFetched, ExitNoStore, ExitIncomplete, ExitInterrupted}
	case "import", "migrate":
		return []int{ExitFailure, ExitLocked, ExitNoStore, ExitInterrupted}
	case "export", "explain", "report", "serve", "check", "status":
		return []int{ExitFailure, ExitNoStore, ExitInterrupted}
	case "version":
		return nil
	}
	return []int{ExitFailure, ExitInterrupted}
}

// exitCodesOf is the "Exit codes:" paragraph of a command's help: only
// the codes it can return.
func exitCodesOf(name string) string {
	text := map[int]string{
		ExitFailure:        "1 failure (storage, I/O)",
		ExitLocked:         "3 another crawl or import holds the store's lock",
		ExitNothingFetched: "4 the crawl could fetch nothing at all (every host unreachable, every start page failing)",
		ExitNoStore:        "5 no store at --db to read (run crawl, import or migrate first) or one written by a newer program",
		ExitIncomplete:     "6 the crawl stopped with URLs left (--max-time, or PostgreSQL or Redis unreachable for longer than fleet.outage_limit)",
		ExitInterrupted:    "130 interrupted by SIGINT (143 for SIGTERM)",
	}
	parts := []string{"0 done"}
	if name == "crawl" {
		parts[0] = "0 done (page errors are counted, not fatal)"
	}
	for _, c := range commandExits(name) {
		parts = append(parts, text[c])
		if c == ExitFailure {
			parts = append(parts, "2 bad flags or invalid config")
		}
	}
	if len(parts) == 1 {
		parts = append(parts, "2 bad flags")
	}
	return wrap("Exit codes: "+strings.Join(parts, "; ")+".", helpWidth)
}

// helpWidth is the width help paragraphs are wrapped to.
const helpWidth = 78

// wrap breaks s into lines of at most width bytes at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// trimPrefix removes a "name: " prefix the command put on its own error,
// since the exit path prints "newscrawl name: " before it.
func trimPrefix(msg, name string) string {
	for {
		rest, ok := strings.CutPrefix(msg, name+": ")
		if !ok {
			return msg
		}
		msg = rest
	}
}
