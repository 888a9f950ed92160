// Package dataset reads the shared near-duplicate data sets: the
// robustness set bench/dev/robust.jsonl (the Li Gang et al. 2013 edit
// protocol) and the SpotSigs gold set (Theobald et al. 2008). It only
// reads; scoring lives in internal/evaldedup.
package dataset

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// GoldDoc is one page of the SpotSigs gold set: cluster = folder = story.
type GoldDoc struct {
	Cluster, File   string
	DeclaredCharset string
	HTML            []byte
}

// maxGoldPage bounds one page of the archive (the largest is ~300 KB).
const maxGoldPage = 8 << 20

// LoadGoldset reads the gold set's pages in the order of its TSV index
// (tsvPath) from the tar.gz archive.
func LoadGoldset(tsvPath, tarPath string) ([]GoldDoc, error) {
	tf, err := os.Open(tsvPath)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	var docs []GoldDoc
	index := map[string]int{}
	sc := bufio.NewScanner(tf)
	for n := 0; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if n == 0 || len(f) < 5 {
			continue
		}
		index[f[0]+"/"+f[1]] = len(docs)
		docs = append(docs, GoldDoc{Cluster: f[0], File: f[1], DeclaredCharset: f[4]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	af, err := os.Open(tarPath)
	if err != nil {
		return nil, err
	}
	defer af.Close()
	gz, err := gzip.NewReader(af)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tarPath, err)
	}
	tr := tar.NewReader(gz)
	found := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tarPath, err)
		}
		i, ok := index[strings.TrimPrefix(h.Name, "./")]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxGoldPage {
			return nil, fmt.Errorf("%s: %s is %d bytes, over the %d limit", tarPath, h.Name, h.Size, maxGoldPage)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", tarPath, h.Name, err)
		}
		docs[i].HTML = b
		found++
	}
	if found != len(docs) {
		return nil, fmt.Errorf("%s: %d of %d indexed pages found in the archive", tarPath, found, len(docs))
	}
	return docs, nil
}
