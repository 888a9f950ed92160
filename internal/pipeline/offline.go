package pipeline

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/dedupinput"
)

// OfflineDoc is one input document of offline dedup.
type OfflineDoc struct {
	ID    json.RawMessage `json:"id"`
	Title string          `json:"title"`
	Text  string          `json:"text"`
}

// OfflineResult is one output line of offline dedup.
type OfflineResult struct {
	ID          json.RawMessage `json:"id"`
	Cluster     json.RawMessage `json:"cluster"`
	Kept        bool            `json:"kept"`
	DupOf       json.RawMessage `json:"dup_of"`
	Jaccard     *float64        `json:"jaccard,omitempty"`
	Containment *float64        `json:"containment,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	// PartialOf is set for a partial reprint (reason "partial"): the kept
	// article re-uses passages of this one (both add text of their own);
	// OwnShare is the share of its content words outside them.
	PartialOf json.RawMessage `json:"partial_of,omitempty"`
	OwnShare  *float64        `json:"own_share,omitempty"`
	// StoredOwnShare is the share of partial_of's content words outside
	// the passages it shares with this article: what the other side adds.
	StoredOwnShare *float64 `json:"stored_own_share,omitempty"`
	// Passages are the shared runs of content words (winnowing) with
	// dup_of or partial_of: [start here, start there, length].
	Passages [][3]int `json:"passages,omitempty"`
}

// ReadJSONL reads {"id","title","text"} lines strictly (internal/dedupinput):
// a line without "text" or "id", with an unknown key, or repeating an id is
// an error naming the line; blank lines and a leading BOM are accepted.
func ReadJSONL(path string) ([]OfflineDoc, error) {
	var docs []OfflineDoc
	for d, err := range StreamJSONL(path) {
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// StreamJSONL yields the documents of a JSONL file one by one, read as
// ReadJSONL reads them (internal/dedupinput's strict Reader), so that a
// caller holds only the current line and the ids seen; the first error
// ends the sequence.
func StreamJSONL(path string) iter.Seq2[OfflineDoc, error] {
	return StreamJSONLWith(path, false)
}

// StreamJSONLWith is StreamJSONL; lenient ignores the keys the reader does
// not know (dedupinput.Reader.Lenient).
func StreamJSONLWith(path string, lenient bool) iter.Seq2[OfflineDoc, error] {
	return func(yield func(OfflineDoc, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(OfflineDoc{}, err)
			return
		}
		defer f.Close()
		rd := dedupinput.NewReader(f, path)
		rd.Lenient = lenient
		for {
			d, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(OfflineDoc{}, err)
				return
			}
			if !yield(OfflineDoc{ID: d.ID, Title: d.Title, Text: d.Text}, nil) {
				return
			}
		}
	}
}

// ReadHTMLDir extracts every .html/.htm/.shtml/.xhtml file under dir (see
// ExtractPage); the id is the path relative to dir. Pages without an
// article are kept with empty text (they never join a cluster); skip is
// called for each of them with the reason. A name that is not a regular
// file (a named pipe "x.html", which would block the read for ever) is no
// document: skip is called with an error wrapping ErrNotRegular.
func ReadHTMLDir(dir string, skip func(rel string, err error)) ([]OfflineDoc, error) {
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return nil, err
	}
	var docs []OfflineDoc
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !isHTMLName(path) {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		id, _ := json.Marshal(filepath.ToSlash(rel))
		doc := OfflineDoc{ID: id}
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			// not a page: no document
			skip(rel, fmt.Errorf("%w: %s", ErrNotRegular, fileKind(fi.Mode())))
			return nil
		}
		raw, err := ReadLimited(path, MaxPageBytes)
		if errors.Is(err, ErrTooLarge) {
			skip(rel, err)
			docs = append(docs, doc)
			return nil
		}
		if err != nil {
			return err
		}
		a, _, err := ExtractPage(ex, Page{URL: "file://" + filepath.ToSlash(path), Body: raw})
		if err != nil {
			skip(rel, err)
		} else {
			doc.Title, doc.Text = a.Title, a.Text
		}
		docs = append(docs, doc)
		return nil
	})
	return docs, err
}

func isHTMLName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".html", ".htm", ".shtml", ".xhtml":
		return true
	}
	return false
}

// Dedup clusters docs with eng in input order (Single-Pass, dedup.Batch).
// Clusters can merge later in the batch (dedup.Verdict.Merged), so the
// results are complete only once every verdict is in; a cluster is named
// by the id of its first document.
func Dedup(ctx context.Context, eng *dedup.Engine, docs []OfflineDoc) (results []OfflineResult, kept, dups int, err error) {
	batch := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		batch[i] = dedup.Doc{Title: d.Title, Text: d.Text}
	}
	results = make([]OfflineResult, len(docs))
	clusters := make([]uint64, len(docs))
	err = eng.Batch(ctx, batch, func(i int, v dedup.Verdict) error {
		r := OfflineResult{ID: docs[i].ID, Kept: !v.Duplicate, DupOf: json.RawMessage("null"), Reason: v.Reason}
		clusters[i] = uint64(i)
		if v.Duplicate {
			dups++
			r.DupOf = docs[v.DupOf].ID
			clusters[i] = v.Cluster
			j, c := v.Jaccard, v.Containment
			r.Jaccard, r.Containment = &j, &c
		} else {
			kept++
		}
		if v.Reason == "partial" {
			r.PartialOf = docs[v.PartialOf].ID
			own, stored := v.OwnShare, v.StoredOwnShare
			r.OwnShare, r.StoredOwnShare = &own, &stored
		}
		for _, p := range v.Passages {
			r.Passages = append(r.Passages, [3]int{p.StartA, p.StartB, p.Len})
		}
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	for i := range results {
		c, err := eng.ClusterOf(ctx, clusters[i])
		if err != nil {
			return nil, 0, 0, err
		}
		results[i].Cluster = docs[c].ID
	}
	return results, kept, dups, nil
}

// DedupStream clusters docs with eng in input order (Single-Pass,
// dedup.Engine.Stream) and writes one JSON line per document to w, in
// input order. Clusters can merge later in the input (dedup.Verdict.Merged),
// so verdicts first go to temporary files in tmpDir ("": the system's),
// and the lines are written once every verdict is in, with the final
// cluster. Memory does not grow with the number of documents, except
// through the engine's index.
func DedupStream(ctx context.Context, eng *dedup.Engine, docs iter.Seq2[OfflineDoc, error], w io.Writer, tmpDir string) (n, kept, dups int, err error) {
	tmp, err := newVerdictSpool(tmpDir)
	if err != nil {
		return 0, 0, 0, err
	}
	defer tmp.close()
	var idErr error
	texts := func(yield func(dedup.Doc, error) bool) {
		for d, err := range docs {
			if err != nil {
				yield(dedup.Doc{}, err)
				return
			}
			if idErr = tmp.addID(d.ID); idErr != nil {
				yield(dedup.Doc{}, idErr)
				return
			}
			if !yield(dedup.Doc{Title: d.Title, Text: d.Text}, nil) {
				return
			}
		}
	}
	err = eng.Stream(ctx, texts, func(i int, v dedup.Verdict) error {
		n++
		if v.Duplicate {
			dups++
		} else {
			kept++
		}
		return tmp.addVerdict(uint64(i), v)
	})
	if err != nil {
		return n, kept, dups, err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err = tmp.replay(func(i uint64, v spooled) error {
		r := OfflineResult{Kept: !v.dup, DupOf: json.RawMessage("null"), Reason: v.reason}
		var err error
		if r.ID, err = tmp.id(i); err != nil {
			return err
		}
		cluster, err := eng.ClusterOf(ctx, v.cluster)
		if err != nil {
			return err
		}
		if r.Cluster, err = tmp.id(cluster); err != nil {
			return err
		}
		if v.dup {
			if r.DupOf, err = tmp.id(v.dupOf); err != nil {
				return err
			}
			j, c := v.jaccard, v.containment
			r.Jaccard, r.Containment = &j, &c
		}
		if v.reason == "partial" {
			if r.PartialOf, err = tmp.id(v.partialOf); err != nil {
				return err
			}
			own, stored := v.ownShare, v.storedOwnShare
			r.OwnShare, r.StoredOwnShare = &own, &stored
		}
		r.Passages = v.passages
		return enc.Encode(r)
	})
	if err != nil {
		return n, kept, dups, err
	}
	return n, kept, dups, bw.Flush()
}

// verdictSpool keeps offline verdicts and document ids on disk: ids in one
// file with their offsets (8 bytes each) in another, verdicts as fixed-size
// records (spoolFixed bytes) plus the reason and the shared passages.
type verdictSpool struct {
	ids, offs, verdicts *os.File
	idw, offw, vw       *bufio.Writer
	idPos               int64
	buf                 []byte
}

type spooled struct {
	dup                  bool
	dupOf, cluster       uint64
	jaccard, containment float64
	partialOf            uint64
	ownShare             float64
	storedOwnShare       float64
	reason               string
	passages             [][3]int
}

// spoolFixed is the size of a spooled verdict's fixed part: the duplicate
// flag, dupOf, cluster, Jaccard, containment, partialOf, ownShare,
// storedOwnShare and the reason's length.
const spoolFixed = 1 + 7*8 + 1

func newVerdictSpool(dir string) (*verdictSpool, error) {
	s := &verdictSpool{}
	for _, f := range []**os.File{&s.ids, &s.offs, &s.verdicts} {
		tf, err := os.CreateTemp(dir, "newscrawl-dedup-*")
		if err != nil {
			s.close()
			return nil, err
		}
		*f = tf
	}
	s.idw, s.offw, s.vw = bufio.NewWriterSize(s.ids, 1<<16), bufio.NewWriterSize(s.offs, 1<<16), bufio.NewWriterSize(s.verdicts, 1<<16)
	return s, nil
}

func (s *verdictSpool) close() {
	for _, f := range []*os.File{s.ids, s.offs, s.verdicts} {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

func (s *verdictSpool) addID(id json.RawMessage) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(s.idPos))
	if _, err := s.offw.Write(b[:]); err != nil {
		return err
	}
	n, err := s.idw.Write(id)
	s.idPos += int64(n)
	return err
}

func (s *verdictSpool) addVerdict(i uint64, v dedup.Verdict) error {
	cluster := i
	if v.Duplicate {
		cluster = v.Cluster
	}
	b := s.buf[:0]
	if v.Duplicate {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, v.DupOf)
	b = binary.LittleEndian.AppendUint64(b, cluster)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Jaccard))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Containment))
	b = binary.LittleEndian.AppendUint64(b, v.PartialOf)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.OwnShare))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.StoredOwnShare))
	if len(v.Reason) > 255 {
		return fmt.Errorf("verdict %d: reason longer than 255 bytes", i)
	}
	b = append(b, byte(len(v.Reason)))
	b = append(b, v.Reason...)
	b = binary.AppendUvarint(b, uint64(len(v.Passages)))
	for _, p := range v.Passages {
		b = binary.AppendVarint(b, int64(p.StartA))
		b = binary.AppendVarint(b, int64(p.StartB))
		b = binary.AppendVarint(b, int64(p.Len))
	}
	s.buf = b
	_, err := s.vw.Write(b)
	return err
}

// id returns the id of document i (ReadAt on the spooled files).
func (s *verdictSpool) id(i uint64) (json.RawMessage, error) {
	var b [16]byte
	n, err := s.offs.ReadAt(b[:], int64(i)*8)
	if err != nil && !(errors.Is(err, io.EOF) && n >= 8) {
		return nil, fmt.Errorf("spooled id %d: %w", i, err)
	}
	start, end := int64(binary.LittleEndian.Uint64(b[:8])), s.idPos
	if n == 16 {
		end = int64(binary.LittleEndian.Uint64(b[8:]))
	}
	id := make([]byte, end-start)
	if _, err := s.ids.ReadAt(id, start); err != nil {
		return nil, fmt.Errorf("spooled id %d: %w", i, err)
	}
	return id, nil
}

// replay flushes the spool and calls fn for every verdict in order.
func (s *verdictSpool) replay(fn func(i uint64, v spooled) error) error {
	for _, w := range []*bufio.Writer{s.idw, s.offw, s.vw} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if _, err := s.verdicts.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(s.verdicts, 1<<16)
	var fixed [spoolFixed]byte
	for i := uint64(0); ; i++ {
		if _, err := io.ReadFull(r, fixed[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("spooled verdict %d: %w", i, err)
		}
		le := binary.LittleEndian
		v := spooled{dup: fixed[0] == 1, dupOf: le.Uint64(fixed[1:]), cluster: le.Uint64(fixed[9:]),
			jaccard: math.Float64frombits(le.Uint64(fixed[17:])), containment: math.Float64frombits(le.Uint64(fixed[25:])),
			partialOf: le.Uint64(fixed[33:]), ownShare: math.Float64frombits(le.Uint64(fixed[41:])),
			storedOwnShare: math.Float64frombits(le.Uint64(fixed[49:]))}
		reason := make([]byte, fixed[57])
		if _, err := io.ReadFull(r, reason); err != nil {
			return fmt.Errorf("spooled verdict %d: %w", i, err)
		}
		v.reason = string(reason)
		np, err := binary.ReadUvarint(r)
		if err != nil {
			return fmt.Errorf("spooled verdict %d: %w", i, err)
		}
		for range np {
			var p [3]int
			for k := range p {
				x, err := binary.ReadVarint(r)
				if err != nil {
					return fmt.Errorf("spooled verdict %d: %w", i, err)
				}
				p[k] = int(x)
			}
			v.passages = append(v.passages, p)
		}
		if err := fn(i, v); err != nil {
			return err
		}
	}
}
