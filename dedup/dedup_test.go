package dedup

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/fixture/fixturetest"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/winnow"
)

var (
	segOnce sync.Once
	seg     *segment.Segmenter
	segErr  error
)

func testEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	segOnce.Do(func() { seg, segErr = segment.New(segment.Options{}) })
	if segErr != nil {
		t.Fatal(segErr)
	}
	e, err := New(seg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func story(t testing.TB, id string) fixture.Story {
	for _, s := range fixture.Stories() {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no story %s", id)
	return fixture.Story{}
}

func join(ps []string) string { return strings.Join(ps, "\n") }

func TestDecide(t *testing.T) {
	s1, s2, s3 := story(t, "s1"), story(t, "s2"), story(t, "s3")
	full := join(s1.Paragraphs)
	tests := []struct {
		name        string
		title, text string
		dup         bool
		reason      string
	}{
		{"identical", s1.Title, full, true, "exact"},
		{"whitespace and punctuation width differ", s1.Title, strings.ReplaceAll(strings.ReplaceAll(full, "，", ","), "\n", "\n\n　　"), true, "exact"},
		{"paragraph dropped, source line added", "独家：" + s1.Title, "来源：江城日报\n" + join(append(append([]string{}, s1.Paragraphs[:3]...), s1.Paragraphs[4:]...)), true, "jaccard"},
		{"paragraphs swapped", s1.Title, join([]string{s1.Paragraphs[1], s1.Paragraphs[0], s1.Paragraphs[2], s1.Paragraphs[3], s1.Paragraphs[4], s1.Paragraphs[5]}), true, "jaccard"},
		{"another story", s2.Title, join(s2.Paragraphs), false, "new"},
		{"another story on the same topic words", s3.Title, join(s3.Paragraphs), false, "new"},
		{"empty text", s1.Title, "", false, "empty"},
		{"punctuation only", s1.Title, "，。！？", false, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			check(t, e.Add(t.Context(), 1, 0, e.Fingerprint(s1.Title, full)))
			v := decide(t, e, e.Fingerprint(tc.title, tc.text))
			if v.Duplicate != tc.dup || v.Reason != tc.reason {
				t.Fatalf("verdict %+v, want duplicate=%v reason=%s", v, tc.dup, tc.reason)
			}
			if v.Duplicate && (v.DupOf != 1 || v.Cluster != 1 || v.Jaccard < e.Options().Jaccard || v.Jaccard > 1) {
				t.Errorf("evidence %+v", v)
			}
		})
	}
}

// Many different short briefs on one template must stay apart; a repeated
// brief is an exact duplicate.
func TestShortBriefsStayApart(t *testing.T) {
	e := testEngine(t, Options{})
	briefs := []string{
		"本报讯 市图书馆昨日发布公告，自本周起周末开放时间延长至晚上九点。",
		"本报讯 市体育馆昨日发布公告，自本周起周末开放时间调整为早上八点。",
		"本报讯 市博物馆昨日发布公告，自本周起周一闭馆，其余时间照常开放。",
		"本报讯 市档案馆昨日发布公告，自本周起查档服务需提前一天网上预约。",
	}
	for i, b := range briefs {
		fp := e.Fingerprint("", b)
		v := decide(t, e, fp)
		if v.Duplicate {
			t.Fatalf("brief %d merged with %d: %+v", i, v.DupOf, v)
		}
		check(t, e.Add(t.Context(), uint64(i+1), 0, fp))
	}
	if v := decide(t, e, e.Fingerprint("", briefs[2])); !v.Duplicate || v.DupOf != 3 {
		t.Errorf("repeated brief: %+v", v)
	}
}

// A brief cut from a longer story (its first paragraphs) joins the story
// by containment when the headlines agree or when it is a good part of the
// story (Jaccard >= MinContainmentJaccard); a short text fully inside a
// much longer one under another headline (a story quoted by a later one)
// stays apart.
func TestContainmentNeedsHeadlineOrShare(t *testing.T) {
	s := story(t, "s4")
	brief := join(s.Paragraphs[:3]) // 9 of s4's 21 spots
	more := func(ids ...string) string {
		ps := append([]string{}, s.Paragraphs...)
		for _, id := range ids {
			ps = append(ps, story(t, id).Paragraphs...)
		}
		return join(ps)
	}
	// Jaccard of the brief with the long text: 9/33 = 0.27 with s2 added,
	// 9/64 = 0.14 with s2, s1 and s3 added; both under τ.
	near, far := more("s2"), more("s2", "s1", "s3")
	for _, tc := range []struct {
		name, title, long string
		dup               bool
	}{
		{"same headline, small share", "快讯：老旧小区改造进展顺利", far, true},
		{"other headline, small share", "秋粮收购全面展开", far, false},
		{"other headline, large share", "秋粮收购全面展开", near, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			check(t, e.Add(t.Context(), 1, 0, e.Fingerprint(s.Title, tc.long)))
			v := decide(t, e, e.Fingerprint(tc.title, brief))
			if v.Duplicate != tc.dup {
				t.Errorf("%+v (jaccard %.2f containment %.2f)", v, v.Jaccard, v.Containment)
			}
			if v.Jaccard >= e.Options().Jaccard {
				t.Fatalf("jaccard %.2f reaches τ: the test texts no longer test containment", v.Jaccard)
			}
			if tc.dup && v.Reason != "containment" {
				t.Errorf("reason %q", v.Reason)
			}
		})
	}
}

// Single-link: an article that matches a member of a cluster (not its
// centre) joins the cluster, and dup_of names the centre.
func TestSingleLink(t *testing.T) {
	s := story(t, "s2")
	p := s.Paragraphs
	a := join(p[:3])
	b := join(p[1:4])
	c := join(p[2:5])
	for _, tc := range []struct {
		centresOnly bool
		joins       bool
	}{{false, true}, {true, false}} {
		e := testEngine(t, Options{CentresOnly: tc.centresOnly})
		check(t, e.Add(t.Context(), 10, 0, e.Fingerprint(s.Title, a)))
		fb := e.Fingerprint(s.Title, b)
		vb := decide(t, e, fb)
		if !vb.Duplicate {
			t.Fatalf("b not a duplicate of a: %+v", vb)
		}
		check(t, e.AddMember(t.Context(), 11, vb.Cluster, fb))
		fc := e.Fingerprint(s.Title, c)
		if direct := decide(t, e, fc); tc.centresOnly && direct.Duplicate {
			t.Skipf("c already matches a directly (jaccard %.2f): test texts too close", direct.Jaccard)
		}
		vc := decide(t, e, fc)
		if vc.Duplicate != tc.joins || (vc.Duplicate && (vc.DupOf != 10 || vc.Matched != 11)) {
			t.Errorf("centresOnly=%v: %+v", tc.centresOnly, vc)
		}
	}
}

func TestBatchOrderAndClusters(t *testing.T) {
	st := fixture.Stories()
	var docs []Doc
	for _, s := range st {
		docs = append(docs, Doc{s.Title, join(s.Paragraphs)})
	}
	// Reprints at the end: each joins its original's cluster.
	docs = append(docs, Doc{st[0].Title, join(st[0].Paragraphs[1:])}, Doc{st[1].Title + "(图)", join(st[1].Paragraphs)})
	e := testEngine(t, Options{})
	var got []int
	err := e.Batch(context.Background(), docs, func(i int, v Verdict) error {
		c := i
		if v.Duplicate {
			c = int(v.Cluster)
		}
		got = append(got, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, 2, 3, 4, 5, 0, 1}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("clusters %v, want %v", got, want)
		}
	}
}

func TestSimhashOnlyMode(t *testing.T) {
	s := story(t, "s5")
	e := testEngine(t, Options{Research: Research{Mode: SimhashOnly}})
	check(t, e.Add(t.Context(), 1, 0, e.Fingerprint(s.Title, join(s.Paragraphs))))
	v := decide(t, e, e.Fingerprint(s.Title, join(s.Paragraphs)))
	if !v.Duplicate || v.Distance != 0 || v.Reason != "hamming" {
		t.Errorf("identical text under simhash-only: %+v", v)
	}
	if v := decide(t, e, e.Fingerprint("", join(story(t, "s1").Paragraphs))); v.Duplicate {
		t.Errorf("different story under simhash-only: %+v", v)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	segOnce.Do(func() { seg, segErr = segment.New(segment.Options{}) })
	for _, o := range []Options{{Jaccard: 1.5}, {Hamming: 70}, {Chain: -1}} {
		if _, err := New(seg, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil) accepted")
	}
}

func TestTitleSet(t *testing.T) {
	a := TitleSet("快讯：吴伯雄演讲称应推动两岸媒体合作(全文)")
	b := TitleSet("吴伯雄演讲称应推动两岸媒体合作")
	if len(a) == 0 || titleOverlap(a, b) != 1 {
		t.Errorf("decorations not stripped: overlap %.2f", titleOverlap(a, b))
	}
	if o := titleOverlap(TitleSet("【关注】北方多地迎来首场降雪"), TitleSet("秋粮收购全面展开")); o != 0 {
		t.Errorf("unrelated headlines overlap %.2f", o)
	}
	if titleOverlap(nil, b) != 0 {
		t.Error("empty title overlaps")
	}
}

func FuzzFingerprintDecide(f *testing.F) {
	for _, s := range fixture.Stories() {
		f.Add(s.Title, join(s.Paragraphs))
	}
	f.Add("", "")
	f.Add("\xff\xfe", "\x00\u3000，")
	f.Fuzz(func(t *testing.T, title, text string) {
		for _, opts := range []Options{{}, {PartialReprint: true}} {
			e := testEngine(t, opts)
			fp := e.Fingerprint(title, text)
			if fp.Empty() {
				if v := decide(t, e, fp); v.Duplicate || v.Reason != "empty" {
					t.Fatalf("empty text verdict %+v", v)
				}
				return
			}
			if opts.PartialReprint && !reflect.DeepEqual(fp, e.fingerprintWords(title, text)) {
				t.Fatalf("stream and word-list fingerprints differ with winnowing prints")
			}
			check(t, e.Add(t.Context(), 1, 0, fp))
			v := decide(t, e, e.Fingerprint(title, text))
			if !v.Duplicate || v.DupOf != 1 {
				t.Fatalf("a text is not a duplicate of itself (%+v): %+v", opts, v)
			}
			if v.Jaccard < 0 || v.Jaccard > 1 || v.Containment < 0 || v.Containment > 1 {
				t.Fatalf("similarity outside [0,1]: %+v", v)
			}
			for _, p := range v.Passages {
				if p.StartA < 0 || p.StartB < 0 || p.Len <= 0 || p.StartA+p.Len > fp.ContentWords || p.StartB+p.Len > fp.ContentWords {
					t.Fatalf("passage %+v outside a text of %d content words", p, fp.ContentWords)
				}
			}
		}
	})
}

// An article that matches two clusters bridges them: by default they merge
// into the older one, and a later article matching either joins it; with
// NoMerge (or CentresOnly) they stay apart.
func TestClusterMerge(t *testing.T) {
	s := story(t, "s4")
	p := s.Paragraphs
	if len(p) < 5 {
		t.Fatalf("story s4 has %d paragraphs, the test needs 5", len(p))
	}
	// Spots per paragraph: 3 2 4 7 5. The bridge shares 6 of a's 9 spots
	// (Jaccard 0.38) and 7 of b's 12 (0.39); a and b share none.
	a, b, bridge := join(p[:3]), join(p[3:5]), join(p[1:4])
	for _, tc := range []struct {
		name  string
		opts  Options
		merge bool
	}{{"default", Options{}, true}, {"no merge", Options{NoMerge: true}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, tc.opts)
			fa, fb := e.Fingerprint(s.Title, a), e.Fingerprint(s.Title, b)
			check(t, e.Add(t.Context(), 10, 0, fa))
			if v := decide(t, e, fb); v.Duplicate {
				t.Fatalf("the halves of the story match each other (%+v): pick other texts", v)
			}
			check(t, e.Add(t.Context(), 20, 0, fb))
			fc := e.Fingerprint(s.Title, bridge)
			v := decide(t, e, fc)
			if !v.Duplicate {
				t.Fatalf("bridge is no duplicate: %+v", v)
			}
			if tc.merge {
				if v.Cluster != 10 || v.DupOf != 10 || len(v.Merged) != 1 || v.Merged[0] != 20 {
					t.Fatalf("bridge verdict %+v, want cluster 10 merging [20]", v)
				}
			} else if len(v.Merged) != 0 {
				t.Fatalf("bridge verdict %+v merges with NoMerge", v)
			}
			check(t, e.MergeClusters(t.Context(), v.Cluster, v.Merged))
			check(t, e.AddMember(t.Context(), 30, v.Cluster, fc))
			wantB := uint64(20)
			if tc.merge {
				wantB = 10
			}
			if got := clusterOf(t, e, 20); got != wantB {
				t.Fatalf("ClusterOf(20) = %d, want %d", got, wantB)
			}
			// b again: an exact copy of the centre of the (merged) cluster.
			if v := decide(t, e, e.Fingerprint(s.Title, b)); !v.Duplicate || v.Cluster != wantB {
				t.Fatalf("copy of b: %+v, want cluster %d", v, wantB)
			}
		})
	}
}

func TestMemoryIndexMergeChains(t *testing.T) {
	m, err := NewMemoryIndex(3, 0.35)
	if err != nil {
		t.Fatal(err)
	}
	check(t, m.Add(t.Context(), Entry{ID: 5, Cluster: 5, Hash: [16]byte{5}}))
	check(t, m.MergeClusters(t.Context(), 3, []uint64{5}))
	check(t, m.MergeClusters(t.Context(), 1, []uint64{3, 1, 9}))
	for c, want := range map[uint64]uint64{5: 1, 3: 1, 9: 1, 1: 1, 7: 7} {
		if got := clusterOf(t, m, c); got != want {
			t.Errorf("ClusterOf(%d) = %d, want %d", c, got, want)
		}
	}
	got := candidates(t, m, &Fingerprint{Hash: [16]byte{5}}, Query{NoSimhash: true, NoSpotSigs: true})
	if len(got) != 1 || got[0].Cluster != 1 {
		t.Fatalf("candidates %+v, want entry 5 in cluster 1", got)
	}
	// The stored entry itself is not rewritten: a reader's copy is.
	if m.entries[5].Cluster != 5 {
		t.Fatalf("entry rewritten in place")
	}
}

// plainSeg hides the part-of-speech tags of a segmenter.
type plainSeg struct{ s *segment.Segmenter }

func (p plainSeg) Words(t string) []string { return p.s.Words(t) }
func (p plainSeg) IsStop(w string) bool    { return p.s.IsStop(w) }

func TestKeywordExact(t *testing.T) {
	s1, s2 := story(t, "s1"), story(t, "s2")
	p := s1.Paragraphs
	tests := []struct {
		name, text string
		reason     string
	}{
		{"identical", join(p), "keywords"},
		// Same words in another order: the text hash differs, the keywords do not.
		{"paragraphs swapped", join(append([]string{p[1], p[0]}, p[2:]...)), "keywords"},
		{"another story", join(s2.Paragraphs), "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEngine(t, Options{Research: Research{KeywordExact: true}})
			check(t, e.Add(t.Context(), 1, 0, e.Fingerprint(s1.Title, join(p))))
			v := decide(t, e, e.Fingerprint(s1.Title, tt.text))
			if v.Reason != tt.reason {
				t.Errorf("reason %q, want %q (%+v)", v.Reason, tt.reason, v)
			}
			if v.Reason == "keywords" && (v.Jaccard <= 0 || v.Jaccard > 1) {
				t.Errorf("keyword verdict without its Jaccard evidence: %+v", v)
			}
		})
	}
	t.Run("text hash without the option", func(t *testing.T) {
		e := testEngine(t, Options{})
		check(t, e.Add(t.Context(), 1, 0, e.Fingerprint(s1.Title, join(p))))
		v := decide(t, e, e.Fingerprint(s1.Title, join(append([]string{p[1], p[0]}, p[2:]...))))
		if v.Reason != "jaccard" {
			t.Errorf("reason %q, want jaccard", v.Reason)
		}
	})
	t.Run("segmenter without tags", func(t *testing.T) {
		testEngine(t, Options{}) // loads seg
		if _, err := New(plainSeg{seg}, Options{Research: Research{KeywordExact: true}}); err == nil {
			t.Error("no error")
		}
	})
}

// TestPartialReprint: the partial-reprint rule weighs what each side of a
// verified pair adds. A story S and a follow-up F that re-used most of S
// and added as much again are two articles whichever is stored first (the
// held-back case: S arriving after F was dropped); a reprint of S with an
// editor's note, a copy with a paragraph dropped, or F arriving after a
// copy that contains it, are duplicates.
func TestPartialReprint(t *testing.T) {
	s2 := story(t, "s2")
	// S: an 11-paragraph story (229 content words); F: its first seven
	// paragraphs, then five of new text (SpotSigs Jaccard 0.44 with S,
	// containment 0.61: the held-back pair had 0.43 and 0.71).
	title, story, followup := fixturetest.FollowUp()
	sp := strings.Split(story, "\n")
	note := "\n编者按：本文转载自江城日报，仅供参考，版权归原作者所有。"
	fuTitle := fixture.FollowUpTitle
	type step struct {
		title     string
		text      string
		dup       bool
		reason    string
		partialOf uint64 // 0: not a partial reprint
	}
	on := Options{PartialReprint: true}
	tests := []struct {
		name  string
		opts  Options
		steps []step // stored in order as ids 1, 2, …
	}{
		{"story stored after the follow-up that re-used most of it", on, []step{
			{fuTitle, followup, false, "new", 0}, {title, story, false, "partial", 1}}},
		{"then a reprint of the story with an editor's note", on, []step{
			{fuTitle, followup, false, "new", 0}, {title, story, false, "partial", 1}, {title, story + note, true, "jaccard", 0}}},
		{"follow-up stored after the story", on, []step{
			{title, story, false, "new", 0}, {fuTitle, followup, false, "partial", 1}}},
		{"editor's note added", on, []step{{title, story, false, "new", 0}, {title, story + note, true, "jaccard", 0}}},
		{"paragraph dropped", on, []step{{title, story, false, "new", 0}, {title, join(sp[1:]), true, "jaccard", 0}}},
		{"follow-up arriving after itself with a note", on, []step{{fuTitle, followup, false, "new", 0}, {fuTitle, followup + note, true, "jaccard", 0}}},
		{"the whole story quoted in a longer text: the stored side adds nothing", on, []step{
			{title, story, false, "new", 0}, {title, story + "\n" + join(s2.Paragraphs), true, "jaccard", 0}}},
		{"extended copy: the follow-up's text under the story's headline", on, []step{
			{title, story, false, "new", 0}, {title, followup, true, "jaccard", 0}}},
		{"follow-up without a headline", on, []step{
			{title, story, false, "new", 0}, {"", followup, true, "jaccard", 0}}},
		{"English headlines overlapping at 0.46: below the Chinese limit, above the English one", on, []step{
			{"Subway line three opens next month", story, false, "new", 0}, {"Snow greets the first riders on the new line three", followup, true, "jaccard", 0}}},
		{"headlines in English with no words in common", on, []step{
			{"Subway opens", story, false, "new", 0}, {"Blizzard hits", followup, false, "partial", 1}}},
		{"rule off: the story after its follow-up is dropped", Options{}, []step{
			{fuTitle, followup, false, "new", 0}, {title, story, true, "jaccard", 0}}},
		{"exhaustive candidates (MemoryIndex)", Options{PartialReprint: true, NewIndex: NewExhaustiveIndex}, []step{
			{fuTitle, followup, false, "new", 0}, {title, story, false, "partial", 1}, {title, story + note, true, "jaccard", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEngine(t, tt.opts)
			for i, st := range tt.steps {
				fp := e.Fingerprint(st.title, st.text)
				v := decide(t, e, fp)
				if v.Duplicate != st.dup || v.Reason != st.reason {
					t.Fatalf("step %d: got duplicate %v reason %q (own %.2f, stored own %.2f, J %.2f, C %.2f), want %v %q",
						i+1, v.Duplicate, v.Reason, v.OwnShare, v.StoredOwnShare, v.Jaccard, v.Containment, st.dup, st.reason)
				}
				if st.partialOf != 0 && (v.PartialOf != st.partialOf || len(v.Passages) == 0 ||
					min(v.OwnShare, v.StoredOwnShare) < MinMutualOwnShare || max(v.OwnShare, v.StoredOwnShare) < MinOwnShare) {
					t.Errorf("step %d: partial verdict without its evidence: %+v", i+1, v)
				}
				if st.dup && tt.opts.PartialReprint && len(v.Passages) == 0 {
					t.Errorf("step %d: duplicate verdict without shared passages: %+v", i+1, v)
				}
				id := uint64(i + 1)
				if v.Duplicate {
					check(t, e.AddMember(t.Context(), id, v.Cluster, fp))
				} else {
					check(t, e.Add(t.Context(), id, 0, fp))
				}
			}
		})
	}
}

// TestOwnKeeps is the rule's table: both sides must add, one of them a lot.
func TestOwnKeeps(t *testing.T) {
	tests := []struct {
		name string
		o    Own
		want bool
	}{
		{"story after its follow-up", Own{New: 0.29, NewWords: 100, Stored: 0.48}, true},
		{"follow-up after its story", Own{New: 0.48, NewWords: 100, Stored: 0.29}, true},
		{"copy with a few sentences added", Own{New: 0.19, NewWords: 60, Stored: 0.02}, false},
		{"copy with foreign sentences against one with deletions", Own{New: 0.32, NewWords: 100, Stored: 0.35}, false},
		{"whole story quoted", Own{New: 0.6, NewWords: 300, Stored: 0}, false},
		{"too few own words", Own{New: 0.5, NewWords: MinOwnWords - 1, Stored: 0.5}, false},
		{"at the thresholds", Own{New: MinMutualOwnShare, NewWords: MinOwnWords, Stored: MinOwnShare}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.o.Keeps(); got != tt.want {
				t.Errorf("%+v.Keeps() = %v, want %v", tt.o, got, tt.want)
			}
		})
	}
}

func TestPackPrints(t *testing.T) {
	in := []winnow.Print{{Hash: 0xDEADBEEF_12345678, Pos: 7}, {Hash: 1 << 40, Pos: 0}, {Hash: 5, Pos: -1}}
	got := UnpackPrints(PackPrints(in))
	want := []winnow.Print{{Hash: 1 << 40, Pos: 0}, {Hash: 0xDEADBEEF_00000000, Pos: 7}} // sorted by hash
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// UnpackPrints reverses PackPrints, for the tests (hashes keep their high 32 bits; the
// order is PackPrints' sorted order).
func UnpackPrints(packed []uint64) []winnow.Print {
	out := make([]winnow.Print, len(packed))
	for i, v := range packed {
		out[i] = winnow.Print{Hash: v &^ posMask, Pos: int(v & posMask)}
	}
	return out
}
