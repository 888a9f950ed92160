package dedup

import (
	"testing"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/fixture/fixturetest"
)

// TestStale: a verdict is stale when an entry indexed after it verifies
// with the page, or clusters merged under a duplicate verdict; when it is
// not stale, deciding again over the updated index gives the same verdict.
func TestStale(t *testing.T) {
	s1, s2, s3 := story(t, "s1"), story(t, "s2"), story(t, "s3")
	page := join(append(append([]string{}, s1.Paragraphs[:3]...), s1.Paragraphs[4:]...)) // s1, one paragraph dropped
	tests := []struct {
		name    string
		mode    Mode
		indexed []string // texts indexed before the verdict (ids 1, 2, …)
		added   []string // texts indexed after it (ids 101, 102, …)
		merges  int
		want    bool
	}{
		{"nothing committed meanwhile", Combined, nil, nil, 0, false},
		{"another story committed", Combined, nil, []string{join(s3.Paragraphs)}, 0, false},
		{"its original committed", Combined, nil, []string{join(s1.Paragraphs)}, 0, true},
		{"original among others", Combined, []string{join(s2.Paragraphs)}, []string{join(s3.Paragraphs), join(s1.Paragraphs)}, 0, true},
		{"merge under a new verdict", Combined, []string{join(s2.Paragraphs)}, nil, 1, false},
		{"merge under a duplicate verdict", Combined, []string{join(s1.Paragraphs)}, nil, 1, true},
		{"duplicate verdict, another original committed", Combined, []string{join(s1.Paragraphs)}, []string{join(s1.Paragraphs)}, 0, true},
		{"simhash only: a copy committed", SimhashOnly, nil, []string{page}, 0, true},
		{"simhash only: another story committed", SimhashOnly, nil, []string{join(s3.Paragraphs)}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{Research: Research{Mode: tc.mode}})
			for i, text := range tc.indexed {
				check(t, e.Add(t.Context(), uint64(i+1), 0, e.Fingerprint(s1.Title, text)))
			}
			fp := e.Fingerprint(s1.Title, page)
			v := decide(t, e, fp)
			var added []Entry
			for i, text := range tc.added {
				en := e.entry(uint64(101+i), 0, e.Fingerprint(s1.Title, text))
				en.Cluster = en.ID
				added = append(added, en)
			}
			if got := e.Stale(fp, v, added, tc.merges); got != tc.want {
				t.Fatalf("Stale = %v, want %v (verdict %+v)", got, tc.want, v)
			}
			if tc.want {
				return
			}
			for _, en := range added {
				check(t, e.Restore(t.Context(), en))
			}
			again := decide(t, e, fp)
			if again.Duplicate != v.Duplicate || again.DupOf != v.DupOf || again.Reason != v.Reason || again.Matched != v.Matched ||
				again.PartialOf != v.PartialOf {
				t.Fatalf("not stale, but deciding again gives %+v, was %+v", again, v)
			}
		})
	}
}

// TestStalePartialReprints: the re-check follows the partial-reprint rule
// as Decide does (a partial reprint is formed from a verified pair and
// names its cluster). A stale verdict changes when decided again (but for
// a cluster merge, which only may change it); one that is not stale is
// decided again the same.
func TestStalePartialReprints(t *testing.T) {
	s4 := story(t, "s4") // FollowUp is made of s1, s2 and s3
	title, story, followup := fixturetest.FollowUp()
	note := "\n编者按：本文转载自江城日报，仅供参考，版权归原作者所有。"
	type page struct{ title, text string }
	tests := []struct {
		name    string
		indexed []page // indexed before the verdict (ids 1, 2, …)
		added   []page // indexed after it (ids 101, 102, …)
		merges  int
		want    bool
		again   string // the reason of deciding again
	}{
		{"story new, its follow-up committed meanwhile", nil, []page{{fixture.FollowUpTitle, followup}}, 0, true, "partial"},
		{"partial reprint, another story committed", []page{{fixture.FollowUpTitle, followup}}, []page{{s4.Title, join(s4.Paragraphs)}}, 0, false, "partial"},
		{"partial reprint, clusters merged", []page{{fixture.FollowUpTitle, followup}}, nil, 1, true, "partial"},
		{"partial reprint, a copy of the story committed", []page{{fixture.FollowUpTitle, followup}}, []page{{title, story + note}}, 0, true, "jaccard"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{PartialReprint: true})
			for i, p := range tc.indexed {
				check(t, e.Add(t.Context(), uint64(i+1), 0, e.Fingerprint(p.title, p.text)))
			}
			fp := e.Fingerprint(title, story)
			v := decide(t, e, fp)
			var added []Entry
			for i, p := range tc.added {
				added = append(added, e.entry(uint64(101+i), uint64(101+i), e.Fingerprint(p.title, p.text)))
			}
			if got := e.Stale(fp, v, added, tc.merges); got != tc.want {
				t.Fatalf("Stale = %v, want %v (verdict %+v)", got, tc.want, v)
			}
			for _, en := range added {
				check(t, e.Restore(t.Context(), en))
			}
			again := decide(t, e, fp)
			if again.Reason != tc.again {
				t.Fatalf("deciding again: reason %q, want %q (%+v; was %+v)", again.Reason, tc.again, again, v)
			}
			if !tc.want && (again.Duplicate != v.Duplicate || again.DupOf != v.DupOf || again.Reason != v.Reason ||
				again.Matched != v.Matched || again.PartialOf != v.PartialOf || again.PartialOfCluster != v.PartialOfCluster) {
				t.Fatalf("not stale, but deciding again gives %+v, was %+v", again, v)
			}
			if tc.want && tc.merges == 0 && again.Reason == v.Reason && again.Matched == v.Matched {
				t.Fatalf("stale, but deciding again gives the same verdict %+v", again)
			}
		})
	}
}

// A short photo page decided "new" is stale when a page with the same lead
// image and a related headline was committed meanwhile (decideImage).
func TestStaleImageEvidence(t *testing.T) {
	for _, tc := range []struct {
		name, title string
		image       imgfp.Fingerprint
		want        bool
	}{
		{"same photo committed", "东湖冰景", photoFP, true},
		{"same photo, unrelated headline", "古城墙夜景", photoFP, false},
		{"other photo", "东湖冰景", changed(photoFP, 24, 25, 26, 27, 28, 29, 30, 31), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			fp := e.Fingerprint("东湖冰景", "图为昨日清晨的江城东湖。")
			fp.Image = photoFP
			v := decide(t, e, fp)
			c := e.Fingerprint(tc.title, "市民在东湖边拍照留念。")
			c.Image = tc.image
			en := e.entry(101, 101, c)
			if got := e.Stale(fp, v, []Entry{en}, 0); got != tc.want {
				t.Fatalf("Stale = %v, want %v (verdict %+v)", got, tc.want, v)
			}
			check(t, e.Restore(t.Context(), en))
			if again := decide(t, e, fp); again.Duplicate != tc.want {
				t.Fatalf("deciding again: %+v, want duplicate=%v", again, tc.want)
			}
		})
	}
}
