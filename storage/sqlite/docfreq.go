package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/storage"
)

// Document frequencies in the SQLite store.
//
// A stored document's distinct terms are not upserted into docfreq one by
// one: that dirtied about one docfreq B-tree page per term, and every dirty
// page is written to the WAL at each commit and again at the next
// checkpoint. Instead Commit appends one row to docfreq_pending holding the
// document's terms (appendTerms), and every foldEvery-th document's Commit
// folds the log into docfreq — counts summed in memory, upserted in term
// order, log emptied — inside its own transaction. Readers add the log to
// docfreq (DocFreqs). Every step runs in the transaction of the Commit that
// causes it, so document frequencies stay exactly as atomic as before. A
// Batch counts its articles' terms in memory instead and folds them, with
// the log, once at its End (foldBatch).

// errBadTermLog marks a docfreq_pending row that appendTerms did not write.
var errBadTermLog = errors.New("malformed docfreq_pending row")

// appendTerms appends terms to b, each as its uvarint byte length followed by
// its bytes.
func appendTerms(b []byte, terms []string) []byte {
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return b
}

// decodeTerms calls fn with each term of an appendTerms encoding (the slice
// aliases b), or reports an error when b is not one.
func decodeTerms(b []byte, fn func(term []byte)) error {
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return errors.New("bad term length")
		}
		b = b[k:]
		if n > uint64(len(b)) {
			return fmt.Errorf("term of %d bytes overruns the %d bytes left", n, len(b))
		}
		fn(b[:n])
		b = b[n:]
	}
	return nil
}

// termDF is a term with a document count.
type termDF struct {
	term string
	df   int
	doc  int64 // the last document addOnce counted it for
}

// termTally sums document counts per term.
type termTally struct {
	at   map[string]int // index in list
	list []termDF
}

// addOnce counts document doc (numbered from 1, never decreasing) for
// term, once however often the document holds the term: one map lookup a
// term, where storage.DistinctTerms and add took a map of their own.
func (t *termTally) addOnce(term string, doc int64) {
	if i, ok := t.at[term]; ok {
		if x := &t.list[i]; x.doc != doc {
			x.df++
			x.doc = doc
		}
		return
	}
	t.at[term] = len(t.list)
	t.list = append(t.list, termDF{term: term, df: 1, doc: doc})
}

func (t *termTally) add(term []byte) {
	if i, ok := t.at[string(term)]; ok { // no allocation for a known term
		t.list[i].df++
		return
	}
	s := string(term)
	t.at[s] = len(t.list)
	t.list = append(t.list, termDF{term: s, df: 1})
}

// sorted returns the tally in byte order of the terms, the order of
// SQLite's BINARY collation (memcmp).
func (t *termTally) sorted() []termDF {
	slices.SortFunc(t.list, func(a, b termDF) int { return strings.Compare(a.term, b.term) })
	return t.list
}

// readPending sums the docfreq_pending log per term. The log holds at most
// foldEvery documents' terms. A malformed row yields an error wrapping
// errBadTermLog.
func readPending(ctx context.Context, tx *sql.Tx) (*termTally, error) {
	t := &termTally{at: make(map[string]int)}
	if err := readPendingInto(ctx, tx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// readPendingInto adds the docfreq_pending log to the tally t.
func readPendingInto(ctx context.Context, tx *sql.Tx, t *termTally) error {
	rows, err := tx.QueryContext(ctx, `SELECT seq, terms FROM docfreq_pending`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var blob sql.RawBytes // valid until Next: decoded at once, no copy
		if err := rows.Scan(&seq, &blob); err != nil {
			return err
		}
		if err := decodeTerms(blob, t.add); err != nil {
			return fmt.Errorf("%w %d: %w", errBadTermLog, seq, err)
		}
	}
	return rows.Err()
}

// addTerms counts one more document for each distinct term and for the
// corpus, in the caller's transaction (s.writeMu held): it logs the terms in
// docfreq_pending and, on every foldEvery-th document, folds the log.
func (s *Store) addTerms(ctx context.Context, tx *sql.Tx, terms []string) error {
	if distinct := storage.DistinctTerms(terms); len(distinct) > 0 {
		// The driver copies the blob when binding it, so the buffer can be
		// reused by the next commit.
		s.termBuf = appendTerms(s.termBuf[:0], distinct)
		if _, err := tx.StmtContext(ctx, s.stmts.logTerms).ExecContext(ctx, s.termBuf); err != nil {
			return fmt.Errorf("document frequencies: %w", err)
		}
	}
	var docs int64
	err := tx.StmtContext(ctx, s.stmts.addDoc).QueryRowContext(ctx).Scan(&docs)
	if errors.Is(err, sql.ErrNoRows) {
		return errors.New("docs counter row is missing (run Check)")
	} else if err != nil {
		return fmt.Errorf("docs counter: %w", err)
	}
	if docs%foldEvery != 0 {
		return nil
	}
	if err := s.fold(ctx, tx); err != nil {
		return fmt.Errorf("fold document frequencies: %w", err)
	}
	return nil
}

// fold adds the docfreq_pending log to docfreq and empties it. The upserts
// go in term order, so that they walk the docfreq B-tree left to right.
func (s *Store) fold(ctx context.Context, tx *sql.Tx) error {
	tally, err := readPending(ctx, tx)
	if err != nil {
		return err
	}
	return s.upsertTally(ctx, tx, tally)
}

// foldBatch adds a batch's tally of docs documents, and the docfreq_pending
// log, to docfreq, empties the log and raises the docs counter by docs, in
// the batch's transaction (s.writeMu held).
func (s *Store) foldBatch(ctx context.Context, tx *sql.Tx, tally *termTally, docs int64) error {
	if err := readPendingInto(ctx, tx, tally); err != nil {
		return err
	}
	if err := s.upsertTally(ctx, tx, tally); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE meta SET value = value + ? WHERE key = 'docs'`, docs)
	if err != nil {
		return fmt.Errorf("docs counter: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("docs counter: %w", err)
	} else if n != 1 {
		return errors.New("docs counter row is missing (run Check)")
	}
	return nil
}

// upsertTally adds the tally's counts to docfreq and empties the
// docfreq_pending log.
func (s *Store) upsertTally(ctx context.Context, tx *sql.Tx, tally *termTally) error {
	rest := tally.sorted()
	args := make([]any, 0, 2*min(len(rest), maxFoldChunk))
	for len(rest) > 0 {
		// The largest chunk of 1<<k terms that fits what is left.
		k := min(bits.Len(uint(len(rest)))-1, foldChunkBits)
		args = args[:0]
		for _, x := range rest[:1<<k] {
			args = append(args, x.term, int64(x.df))
		}
		rest = rest[1<<k:]
		if _, err := tx.StmtContext(ctx, s.stmts.foldDocFreq[k]).ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	_, err := tx.StmtContext(ctx, s.stmts.clearTerms).ExecContext(ctx)
	return err
}

// DocFreqs streams every term with its document frequency in byte order of
// the term, and returns the number of stored articles, all read from one
// snapshot: docfreq's counts merged with the docfreq_pending log, which is
// read (and summed) first.
func (s *Store) DocFreqs(ctx context.Context, fn func(term string, df int) error) (int, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("document frequencies: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	var docs int
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'docs'`).Scan(&docs); err != nil {
		return 0, fmt.Errorf("document frequencies: docs counter: %w", err)
	}
	tally, err := readPending(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("document frequencies: %w", err)
	}
	pending := tally.sorted()

	rows, err := tx.QueryContext(ctx, `SELECT term, df FROM docfreq ORDER BY term`)
	if err != nil {
		return 0, fmt.Errorf("document frequencies: %w", err)
	}
	defer rows.Close()
	next := 0 // pending[:next] are streamed
	for rows.Next() {
		var x termDF
		if err := rows.Scan(&x.term, &x.df); err != nil {
			return 0, fmt.Errorf("document frequencies: %w", err)
		}
		for ; next < len(pending) && pending[next].term < x.term; next++ {
			if err := fn(pending[next].term, pending[next].df); err != nil {
				return 0, err
			}
		}
		if next < len(pending) && pending[next].term == x.term {
			x.df += pending[next].df
			next++
		}
		if err := fn(x.term, x.df); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("document frequencies: %w", err)
	}
	for ; next < len(pending); next++ {
		if err := fn(pending[next].term, pending[next].df); err != nil {
			return 0, err
		}
	}
	return docs, nil
}
