package evalmethods

import (
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

// robustWinnow is the reference: for every window the rightmost minimum,
// recorded when its index differs from the previous window's.
func robustWinnow(hs []uint64, w int) []int {
	var out []int
	last := -1
	for i := 0; i+w <= len(hs); i++ {
		best := i
		for j := i; j < i+w; j++ {
			if hs[j] <= hs[best] {
				best = j
			}
		}
		if best != last {
			out = append(out, best)
			last = best
		}
	}
	return out
}

// TestChapterSelectSteps runs the chapter's steps ①-④ (book lines 167-177).
// The chapter's own worked example lost its sentence and blocks in both
// captures (book line 143, blog line 159), so the cases are hand-made, plus
// Schleimer et al. (2003)'s Fig. 2 sequence, which the chapter's steps must
// winnow as that paper does.
func TestChapterSelectSteps(t *testing.T) {
	tests := []struct {
		name string
		hs   []uint64
		w    int
		want []int
	}{
		{"Schleimer Fig. 2, window 4", []uint64{77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98}, 4, []int{3, 6, 8, 11, 15}},
		{"① rightmost of equal minima", []uint64{3, 1, 1, 5}, 3, []int{2}},
		{"④ a new equal hash replaces f", []uint64{2, 5, 2}, 2, []int{0, 2}},
		{"④ f smaller than the new hash stays", []uint64{1, 5, 6, 7}, 3, []int{0, 1}},
		{"③ f leaves, rightmost minimum from the right", []uint64{1, 4, 3, 3, 9}, 3, []int{0, 3}},
		{"fewer hashes than a window: nothing", []uint64{4, 2}, 3, nil},
		{"window 1 keeps every hash", []uint64{5, 5, 3}, 1, []int{0, 1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChapterSelect(tc.hs, tc.w); !slices.Equal(got, tc.want) {
				t.Errorf("ChapterSelect = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestChapterWinnow: sentences under k keywords are noise (line 133-137);
// each valid sentence gives its whole hash and the winnowed hashes of its
// own blocks, at global positions; a block never spans two sentences.
func TestChapterWinnow(t *testing.T) {
	s1 := []string{"北京", "新闻", "记者", "报道", "会议", "经济", "发展", "企业", "市场"}
	short := []string{"今天", "晴"}
	s2 := []string{"上海", "政府", "发布", "通知", "要求"}
	ps, err := ChapterWinnow([][]string{s1, short, s2}, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	var sents []ChapterPrint
	blocks := map[int]bool{}
	for _, p := range ps {
		if p.Sentence {
			sents = append(sents, p)
		} else {
			blocks[p.Pos] = true
		}
	}
	if len(sents) != 2 || sents[0].Pos != 0 || sents[1].Pos != len(s1)+len(short) {
		t.Fatalf("sentence prints %+v, want two at 0 and %d", sents, len(s1)+len(short))
	}
	if sents[0].Hash != sentenceHash(s1) || sents[0].Hash == sentenceHash(s2) {
		t.Error("sentence hashes wrong")
	}
	for pos := range blocks {
		inS1 := pos <= len(s1)-3
		inS2 := pos >= len(s1)+len(short) && pos <= len(s1)+len(short)+len(s2)-3
		if !inS1 && !inS2 {
			t.Errorf("block at %d spans sentences or lies in the noise sentence", pos)
		}
	}
	want1 := robustWinnow(winnow.BlockHashes(s1, 3), 3)
	got1 := 0
	for pos := range blocks {
		if pos < len(s1) {
			got1++
		}
	}
	if got1 != len(want1) {
		t.Errorf("%d block prints in the first sentence, want %d", got1, len(want1))
	}
	if _, err := ChapterWinnow(nil, 5, 4); err == nil {
		t.Error("k > g accepted")
	}
}

// FuzzChapterSelect: the chapter's steps select exactly what robust
// winnowing selects, for any hashes and window.
func FuzzChapterSelect(f *testing.F) {
	f.Add([]byte{77, 74, 42, 17, 98, 50, 17, 98, 8, 88}, uint8(4))
	f.Add([]byte{1, 1, 1, 1}, uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		hs := make([]uint64, len(b))
		for i, x := range b {
			hs[i] = uint64(x % 8) // few values: many ties
		}
		win := int(w%10) + 1
		got := ChapterSelect(hs, win)
		var want []int
		if len(hs) >= win {
			want = robustWinnow(hs, win)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("hs %v w %d: chapter %v, robust winnowing %v", hs, win, got, want)
		}
	})
}

func TestSpotSinglePass(t *testing.T) {
	tests := []struct {
		name string
		sigs []spotsigs.Signature
		tau  float64
		want []int
	}{
		{"equal joins", []spotsigs.Signature{{1, 2, 3}, {1, 2, 3}}, 0.5, []int{0, 0}},
		{"below tau stays", []spotsigs.Signature{{1, 2, 3, 4}, {1, 5, 6, 7}}, 0.5, []int{0, 1}},
		{"most similar wins", []spotsigs.Signature{{1, 2, 3, 4}, {5, 6, 7, 8}, {5, 6, 7, 9}}, 0.5, []int{0, 1, 1}},
		{"empty stays alone", []spotsigs.Signature{{}, {}}, 0.1, []int{0, 1}},
		{"length filter", []spotsigs.Signature{{1}, {1, 2, 3, 4, 5}}, 0.5, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := spotSinglePass(tc.sigs, tc.tau); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
