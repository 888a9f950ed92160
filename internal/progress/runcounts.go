package progress

import "github.com/newsdedup/newscrawl/storage"

// RunCounts are a run record's outcome totals in the summary's terms:
// the record keeps errors and gone pages in one count (RunStats.Errors)
// and the gone pages in its per-site "gone" counters, which are taken
// out of Errors here. A record without per-site counters (an import, or a
// crawl by an older version) has no gone pages to take out.
func RunCounts(rs storage.RunStats) Counts {
	var gone int64
	for _, s := range rs.Sites {
		gone += s.Counters["gone"]
	}
	errs := max(int64(rs.Errors)-gone, 0)
	return Counts{Pages: int64(rs.Fetched), Stored: int64(rs.Stored), Duplicates: int64(rs.Duplicates),
		NotArticle: int64(rs.NotArticle), Errors: errs, Gone: gone, Parts: int64(rs.Parts)}
}
