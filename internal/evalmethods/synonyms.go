package evalmethods

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
)

// Synonyms prints pairwise P/R/F1 of the methods whose name contains one of
// only (all when empty), clustering each set in input order with the plain
// segmenter and with synonym normalisation (a Cilin lexicon), side by side.
func Synonyms(ctx context.Context, plain, syn dedup.Segmenter, sets []Set, only []string, w io.Writer) error {
	fmt.Fprintf(w, "\n## Synonym normalisation (HIT Tongyici Cilin): pairwise P/R/F1 without → with\n")
	for _, s := range sets {
		docs := make([]dedup.Doc, len(s.Docs))
		truth := make([]string, len(s.Docs))
		for i, d := range s.Docs {
			docs[i] = dedup.Doc{Title: d.Title, Text: d.Text}
			truth[i] = d.Label
		}
		fmt.Fprintf(w, "\n### %s: %d documents\n\n| method | P | R | F1 | P (synonyms) | R (synonyms) | F1 (synonyms) |\n|---|---|---|---|---|---|---|\n", s.Name, len(s.Docs))
		ms0, ms1 := evaldedup.Methods(plain, dedup.Options{}), evaldedup.Methods(syn, dedup.Options{})
		for i, m := range ms0 {
			if !matches(m.Name, only) {
				continue
			}
			c0, err := m.Cluster(ctx, docs)
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			c1, err := ms1[i].Cluster(ctx, docs)
			if err != nil {
				return fmt.Errorf("%s with synonyms: %w", m.Name, err)
			}
			r0, r1 := evaldedup.Pairwise(c0, truth), evaldedup.Pairwise(c1, truth)
			fmt.Fprintf(w, "| %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", m.Name, r0.Precision, r0.Recall, r0.F1, r1.Precision, r1.Recall, r1.F1)
		}
	}
	return nil
}

func matches(name string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if strings.Contains(name, o) {
			return true
		}
	}
	return false
}
