package sqlite

import "context"

// OpenWith exposes the test-only open options: readOnly opens the file
// with SQLite's mode=ro (which holds even for root, unlike chmod), pragmas are
// extra per-connection PRAGMAs such as "max_page_count(40)".
func OpenWith(ctx context.Context, path string, readOnly bool, pragmas ...string) (*Store, error) {
	return open(ctx, path, options{readOnly: readOnly, pragmas: pragmas})
}

// FoldEvery exposes how many documents' terms the SQLite store logs before
// folding them into its docfreq table.
const FoldEvery = foldEvery

// Migrations exposes the schema migrations, so that a test can build a file
// of an older version.
var Migrations = migrations
