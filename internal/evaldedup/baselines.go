package evaldedup

import (
	"context"
	"fmt"
	"math"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/shingle"
)

// Baselines of the SpotSigs-zh comparison, used only by eval.
const (
	// baselineShingleW and baselineShingleJ: word 4-gram shingles with
	// Jaccard ≥ 0.5, the peer configuration of the SpotSigs-zh comparison.
	baselineShingleW = 4
	baselineShingleJ = 0.5
	// liGangShingleJ: Li Gang et al. (2013) count a pair as similar by
	// Shingle when its Jaccard is above 0.95 (strictly).
	liGangShingleJ = 0.95
	// baselineMinHashSeed fixes the MinHash permutations so runs repeat.
	baselineMinHashSeed = 20080720
)

// singlePassSets clusters documents given as sets with Single-Pass: each
// document joins the most similar earlier centre whose similarity reaches
// threshold, among the candidates cands returns, or opens a cluster.
func singlePassSets(ctx context.Context, sets [][]uint64, threshold float64,
	sim func(a, b []uint64) float64,
	cands func(i int) []int, add func(i int)) ([]int, error) {
	out := make([]int, len(sets))
	for i := range sets {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		best, bestSim := -1, 0.0
		if len(sets[i]) > 0 {
			for _, c := range cands(i) {
				if s := sim(sets[i], sets[c]); s >= threshold && (s > bestSim || (s == bestSim && c < best)) {
					best, bestSim = c, s
				}
			}
		}
		if best < 0 {
			out[i] = i
			if len(sets[i]) > 0 {
				add(i)
			}
		} else {
			out[i] = out[best]
		}
	}
	return out, nil
}

func wordShingles(seg dedup.Segmenter, texts []dedup.Doc) [][]uint64 {
	sets := make([][]uint64, len(texts))
	for i, t := range texts {
		if w := seg.Words(t.Text); len(w) > 0 {
			sets[i] = shingle.Shingles(w, baselineShingleW)
		}
	}
	return sets
}

// baselineShingling is Broder's w-shingling with exact Jaccard; candidates
// come from an inverted index over the shingles of the centres.
func baselineShingling(seg dedup.Segmenter) Method {
	return shinglingAt(seg, "shingling w=4 J≥0.5", baselineShingleJ)
}

// liGangShingling is the Shingle baseline as Li Gang et al. (2013) run it:
// a pair is similar when the Jaccard of its shingle sets is > 0.95.
func liGangShingling(seg dedup.Segmenter) Method {
	return shinglingAt(seg, "shingling w=4 J>0.95 (Li Gang)", math.Nextafter(liGangShingleJ, 1))
}

// shinglingAt is word 4-gram shingling with Single-Pass at Jaccard ≥ j.
func shinglingAt(seg dedup.Segmenter, name string, j float64) Method {
	return Method{name, func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
		sets := wordShingles(seg, texts)
		post := map[uint64][]int{}
		seen := make([]int, len(sets))
		return singlePassSets(ctx, sets, j, shingle.Jaccard,
			func(i int) []int {
				var c []int
				for _, s := range sets[i] {
					for _, d := range post[s] {
						if seen[d] != i+1 {
							seen[d] = i + 1
							c = append(c, d)
						}
					}
				}
				return c
			},
			func(i int) {
				for _, s := range sets[i] {
					post[s] = append(post[s], i)
				}
			})
	}}
}

// baselineMinHash is MinHash-LSH with k = 6 rows and l = 32 bands (the
// SpotSigs-zh paper's setting), verified by the MinHash Jaccard estimate.
func baselineMinHash(seg dedup.Segmenter) Method {
	return Method{"minhash-lsh k=6 l=32", func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
		return minHashCluster(ctx, seg, texts, baselineShingleJ)
	}}
}

// minHashCluster clusters texts by MinHash-LSH candidates verified by the
// MinHash Jaccard estimate ≥ j.
func minHashCluster(ctx context.Context, seg dedup.Segmenter, texts []dedup.Doc, j float64) ([]int, error) {
	sets := wordShingles(seg, texts)
	mh, err := shingle.NewMinHasher(shingle.DefaultRows*shingle.DefaultBands, baselineMinHashSeed)
	if err != nil {
		return nil, err
	}
	lsh, err := shingle.NewLSH(shingle.DefaultRows, shingle.DefaultBands)
	if err != nil {
		return nil, err
	}
	sigs := make([][]uint64, len(sets))
	for i, s := range sets {
		if len(s) > 0 {
			sigs[i] = mh.Signature(s)
		}
	}
	return singlePassSets(ctx, sigs, j, shingle.EstimateJaccard,
		func(i int) []int {
			var c []int
			for _, id := range lsh.Query(sets[i]) {
				c = append(c, int(id))
			}
			return c
		},
		func(i int) { _ = lsh.Add(uint64(i), sets[i]) })
}

// MinHashLSHAt is baselineMinHash (k = 6 rows, l = 32 bands, the SpotSigs-zh
// paper's LSH(6, 32)) with its verification threshold set to j, for sweeps.
func MinHashLSHAt(seg dedup.Segmenter, j float64) Method {
	return Method{fmt.Sprintf("minhash-lsh k=6 l=32 J≥%g", j), func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
		return minHashCluster(ctx, seg, texts, j)
	}}
}
