package segment

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
)

type mapDF struct {
	df   map[string]int
	docs int
}

func (m mapDF) DF(t string) int { return m.df[t] }
func (m mapDF) Docs() int       { return m.docs }

func TestFeatures(t *testing.T) {
	stop := func(w string) bool { return w == "的" || w == "了" }
	words := strings.Fields("北京 的 天气 好 北京 的 空气 好 了 北京")
	corpus := mapDF{df: map[string]int{"北京": 9, "天气": 1, "好": 9, "空气": 0}, docs: 9}
	idf := func(df int) float64 { return math.Log(10/float64(df+1)) + 1 }

	type fw struct {
		term string
		w    float64
		pos  []int
	}
	tests := []struct {
		name  string
		wt    Weighting
		df    DocFreq
		opts  FeatureOptions
		words []string
		want  []fw
	}{
		{"tf", TF, nil, FeatureOptions{}, words, []fw{
			{"北京", 3, []int{0, 4, 9}}, {"好", 2, []int{3, 7}}, {"天气", 1, []int{2}}, {"空气", 1, []int{6}},
		}},
		{"tf top 2", TF, nil, FeatureOptions{TopM: 2}, words, []fw{
			{"北京", 3, []int{0, 4, 9}}, {"好", 2, []int{3, 7}},
		}},
		{"tfidf", TFIDF, corpus, FeatureOptions{}, words, []fw{
			// idf(9) = ln(10/10)+1 = 1, idf(0) = ln 10 + 1, idf(1) = ln 5 + 1
			{"空气", idf(0), []int{6}}, {"北京", 3 * idf(9), []int{0, 4, 9}}, {"天气", idf(1), []int{2}}, {"好", 2 * idf(9), []int{3, 7}},
		}},
		{"tfidf without corpus is tf", TFIDF, nil, FeatureOptions{}, words[:4], []fw{
			{"北京", 1, []int{0}}, {"天气", 1, []int{2}}, {"好", 1, []int{3}},
		}},
		{"df above N is clamped", TFIDF, mapDF{df: map[string]int{"a": 50}, docs: 3}, FeatureOptions{}, []string{"a"}, []fw{
			{"a", 1, []int{0}},
		}},
		{"only stopwords", TF, nil, FeatureOptions{}, []string{"的", "了"}, nil},
		{"empty", TF, nil, FeatureOptions{JTidf: true}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Features(tt.words, stop, tt.wt, tt.df, tt.opts)
			if tt.opts.TopM == 0 {
				// Without TopM features come in order of first occurrence;
				// the wanted lists are by decreasing weight.
				slices.SortStableFunc(got, func(a, b Feature) int { return cmp.Compare(b.Weight, a.Weight) })
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d features %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Term != w.term || math.Abs(g.Weight-w.w) > 1e-12 || !slices.Equal(g.Positions, w.pos) {
					t.Errorf("feature %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestFeaturesJTidf checks the co-occurrence penalty on a constructed text
// of three blocks of cooccurWindow words.
func TestFeaturesJTidf(t *testing.T) {
	if cooccurWindow != 10 || cooccurMinShared != 2 {
		t.Fatalf("test written for window 10, min shared 2")
	}
	block := func(ws ...string) []string {
		out := append([]string(nil), ws...)
		for len(out) < cooccurWindow {
			out = append(out, "的")
		}
		return out
	}
	// Blocks (B = set of blocks of a term; rank by weight, ties by term):
	//   0: 台风 台风 登陆 暴雨   1: 台风 登陆 浙江 暴雨   2: 浙江 民众   3: 浙江 暴雨
	// 台风 (3, B={0,1}) ranks first and keeps 3. 暴雨 (3, B={0,1,3}) shares
	// 2 blocks with 台风: J = 2/3, weight 3*(1/3) = 1. 浙江 (3, B={1,2,3})
	// shares one block with 台风 (below cooccurMinShared) and {1,3} with
	// 暴雨: J = 2/4, weight 1.5. 登陆 (2, B={0,1}) always sits with 台风:
	// J = 1, weight 0. 民众 (1) shares one block only: unchanged.
	var words []string
	words = append(words, block("台风", "台风", "登陆", "暴雨")...)
	words = append(words, block("台风", "登陆", "浙江", "暴雨")...)
	words = append(words, block("浙江", "民众")...)
	words = append(words, block("浙江", "暴雨")...)
	stop := func(w string) bool { return w == "的" }

	plain := Features(words, stop, TF, nil, FeatureOptions{})
	got := Features(words, stop, TF, nil, FeatureOptions{JTidf: true, TopM: 5}) // TopM sorts: heaviest first
	want := map[string]float64{"台风": 3, "暴雨": 1, "浙江": 1.5, "登陆": 0, "民众": 1}
	if len(got) != len(want) || len(plain) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for _, f := range got {
		if math.Abs(f.Weight-want[f.Term]) > 1e-12 {
			t.Errorf("%s: weight %v, want %v", f.Term, f.Weight, want[f.Term])
		}
	}
	var order []string
	for _, f := range got {
		order = append(order, f.Term)
	}
	if want := []string{"台风", "浙江", "暴雨", "民众", "登陆"}; !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
}

// TestFeaturesNoPositions: without positions the terms, their order and
// their weights are those of Features with positions, for every weighting
// and TopM.
func TestFeaturesNoPositions(t *testing.T) {
	stop := func(w string) bool { return w == "的" }
	words := strings.Fields("北京 的 天气 好 北京 的 空气 好 了 北京 天气 风 雨 雨")
	corpus := mapDF{df: map[string]int{"北京": 9, "天气": 1, "好": 9, "空气": 0}, docs: 9}
	for _, tc := range []struct {
		name string
		wt   Weighting
		df   DocFreq
		topM int
	}{{"tf", TF, nil, 0}, {"tfidf", TFIDF, corpus, 0}, {"tf top 3", TF, nil, 3}, {"tfidf top 2", TFIDF, corpus, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			want := Features(words, stop, tc.wt, tc.df, FeatureOptions{TopM: tc.topM})
			got := Features(words, stop, tc.wt, tc.df, FeatureOptions{TopM: tc.topM, NoPositions: true})
			if len(got) != len(want) {
				t.Fatalf("%d features, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Term != want[i].Term || got[i].Weight != want[i].Weight || got[i].Positions != nil {
					t.Errorf("feature %d = %+v, want %+v without positions", i, got[i], want[i])
				}
			}
		})
	}
}
