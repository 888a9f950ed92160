package evalextract

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Expected values were computed with the reference implementations:
// bigram_f1 of bench/score.py and string_shingle_matching of the
// ScrapingHub benchmark's evaluate.py.
func TestBigramF1MatchesScorePy(t *testing.T) {
	tests := []struct {
		pred, truth string
		want        float64
	}{
		{"", "", 1},
		{"a", "", 0},
		{"a", "a", 1},
		{"ab", "ab", 1},
		{"新华社北京电　记者\n张三报道。", "新华社北京电 记者张三报道", 0.9565217391304348},
		{"今天天气很好。今天天气很好。", "今天天气很好。", 0.631578947368421},
		{"abc def\x1cghi", "abcdefghi", 1},
		{"甲乙丙", "丁戊己", 0},
		{"x\u00a0y\u2003z", "xyz", 1},
	}
	for _, tt := range tests {
		if got := BigramF1(tt.pred, tt.truth); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BigramF1(%q, %q) = %v, want %v", tt.pred, tt.truth, got, tt.want)
		}
	}
}

func TestShingleMatchMatchesEvaluatePy(t *testing.T) {
	tests := []struct {
		truth, pred string
		want        TPFPFN
	}{
		{"The quick brown fox jumps over the lazy dog.", "The quick brown fox jumps over the dog.", TPFPFN{0.5714285714285714, 0.14285714285714285, 0.2857142857142857}},
		{"a b", "a b c", TPFPFN{0, 0.5, 0.5}},
		{"", "x y z w v", TPFPFN{0, 1, 0}},
		{"Hello, world! It's 2019_x.", "hello world its 2019_x", TPFPFN{0, 0.3333333333333333, 0.6666666666666666}},
		{"新华社北京电，记者张三报道。今天天气很好", "新华社北京电 记者张三报道。今天天气很好", TPFPFN{1, 0, 0}},
		{"one two three four five six", "", TPFPFN{0, 0, 1}},
	}
	for _, tt := range tests {
		got := ShingleMatch(tt.truth, tt.pred)
		if math.Abs(got.TP-tt.want.TP) > 1e-12 || math.Abs(got.FP-tt.want.FP) > 1e-12 || math.Abs(got.FN-tt.want.FN) > 1e-12 {
			t.Errorf("ShingleMatch(%q, %q) = %+v, want %+v", tt.truth, tt.pred, got, tt.want)
		}
	}
}

func TestShingleScoresSkipsEmptyPredictionsInPrecision(t *testing.T) {
	// evaluate.py averages precision only over pages with tp+fp > 0 and
	// recall only over pages with tp+fn > 0.
	xs := []TPFPFN{{1, 0, 0}, {0, 0, 1}}
	p, r, f := ShingleScores(xs)
	if p != 1 || r != 0.5 || math.Abs(f-2.0/3) > 1e-12 {
		t.Fatalf("got p=%v r=%v f=%v", p, r, f)
	}
}

func TestRelatedLeak(t *testing.T) {
	pieces := []string{"相关阅读", "组图：韩系毛衣加外套 显白显瘦穿衣法", "导语：冬天皮肤有感又黄，再加上冬装棉服。"}
	truth := "正文第一段。\n相关阅读：温家宝亲笔给灾区小学生回信"
	if relatedLeak(truth, truth, pieces) {
		t.Error("text equal to the truth reported as a leak")
	}
	if !relatedLeak(truth+"\n组图：韩系毛衣加外套 显白显瘦穿衣法", truth, pieces) {
		t.Error("block headline in the text not reported")
	}
	if relatedLeak(strings.Repeat("x", 10), truth, nil) {
		t.Error("leak without pieces")
	}
}

func TestParseCWCEDDate(t *testing.T) {
	tests := []struct {
		in   string
		want cwcedDate
		ok   bool
	}{
		{"2005-5-7 21:23:57", cwcedDate{y: 2005, m: 5, d: 7, hh: 21, mm: 23, hasTime: true}, true},
		{"2004-09-17 5:54:13", cwcedDate{y: 2004, m: 9, d: 17, hh: 5, mm: 54, hasTime: true}, true},
		{"2005-07-31 12:30", cwcedDate{y: 2005, m: 7, d: 31, hh: 12, mm: 30, hasTime: true}, true},
		{"2005-07-31 25:30", cwcedDate{y: 2005, m: 7, d: 31}, true},
		{"1998-3", cwcedDate{y: 1998, m: 3}, true},
		{"2018", cwcedDate{y: 2018}, true},
		{"UNKNOWN", cwcedDate{}, false},
		{"刘涛", cwcedDate{}, false},
		{"", cwcedDate{}, false},
	}
	for _, tt := range tests {
		got, ok := parseCWCEDDate(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseCWCEDDate(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCWCEDDateMatchesTime(t *testing.T) {
	utc8 := time.FixedZone("UTC+8", 8*3600)
	label := cwcedDate{y: 2005, m: 7, d: 31, hh: 12, mm: 30, hasTime: true}
	tests := []struct {
		name string
		t    time.Time
		want bool
	}{
		{"same wall clock", time.Date(2005, 7, 31, 12, 30, 59, 0, utc8), true},
		{"other minute", time.Date(2005, 7, 31, 12, 31, 0, 0, utc8), false},
		{"same instant in UTC", time.Date(2005, 7, 31, 4, 30, 0, 0, time.UTC), false},
		{"other day", time.Date(2005, 7, 30, 12, 30, 0, 0, utc8), false},
		{"zero", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := label.matchesTime(tt.t); got != tt.want {
				t.Errorf("matchesTime(%v) = %v, want %v", tt.t, got, tt.want)
			}
		})
	}
	if (cwcedDate{y: 2005, m: 7, d: 31}).matchesTime(time.Date(2005, 7, 31, 0, 0, 0, 0, utc8)) {
		t.Error("a label without a time matched a time")
	}
}
