package segment

import (
	"math"
	"testing"
)

func TestCooccurrenceMJ(t *testing.T) {
	docs := [][]string{
		{"台风", "登陆", "福建"},
		{"台风", "登陆", "浙江"},
		{"台风", "登陆", "福建", "暴雨"},
		{"股市", "上涨"},
		{"股市", "福建"},
	}
	m := LearnCooccurrence(docs, nil, nil)
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		// 台风 in 3 docs, 登陆 in 3, together in 3: 3 / (3+3−3).
		{"always together", "台风", "登陆", 1},
		{"order does not matter", "登陆", "台风", 1},
		// 台风 3, 福建 3, together 2: 2 / (3+3−2).
		{"often together", "台风", "福建", 0.5},
		// together in one document only: below CooccurMinDocs.
		{"one shared document is no evidence", "台风", "暴雨", 0},
		{"never together", "股市", "台风", 0},
		{"a term with itself", "台风", "台风", 0},
		{"unknown term", "台风", "地震", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.MJ(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("MJ(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
	if m.Docs() != len(docs) {
		t.Errorf("Docs() = %d, want %d", m.Docs(), len(docs))
	}
	var nilModel *Cooccurrence
	if nilModel.MJ("台风", "登陆") != 0 {
		t.Error("nil model gave MJ > 0")
	}
}

// The learned J-Tidf penalty lowers a term by its strongest association
// with a heavier term of the same document; the heaviest term keeps its
// weight, unrelated terms too.
func TestFeaturesLearnedJTidf(t *testing.T) {
	train := [][]string{
		{"台风", "登陆", "福建"},
		{"台风", "登陆", "浙江"},
		{"台风", "登陆", "福建", "暴雨"},
	}
	m := LearnCooccurrence(train, nil, nil)
	doc := []string{"台风", "台风", "台风", "福建", "福建", "登陆", "股市"}
	got := map[string]float64{}
	for _, f := range Features(doc, nil, TF, nil, FeatureOptions{JTidf: true, Cooccur: m}) {
		got[f.Term] = f.Weight
	}
	want := map[string]float64{
		"台风": 3,               // heaviest: no penalty
		"福建": 2 * (1 - 2.0/3), // MJ(福建, 台风) = 2 / (2+3−2)
		"登陆": 1 * (1 - 1),     // MJ(登陆, 台风) = 1
		"股市": 1,               // never seen with the others
	}
	for term, w := range want {
		t.Run(term, func(t *testing.T) {
			if math.Abs(got[term]-w) > 1e-12 {
				t.Errorf("weight %v, want %v", got[term], w)
			}
		})
	}
	// Without the model the in-document penalty applies (other values).
	plain := Features(doc, nil, TF, nil, FeatureOptions{JTidf: true})
	for _, f := range plain {
		if f.Term == "登陆" && f.Weight == 0 {
			t.Error("in-document J-Tidf gave the learned model's weight")
		}
	}
}

// Docs returns the number of training documents.
func (c *Cooccurrence) Docs() int { return c.docs }
