package explain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

const (
	origText = "新华社北京11月20日电国务院今天召开常务会议，部署进一步稳定就业的措施。\n会议指出要加大对企业的支持力度。"
	dupText  = "转载自新华社。新华社北京11月20日电国务院今天召开常务会议，部署进一步稳定就业的措施。"
)

func store(t *testing.T, keepText bool) storage.Store {
	t.Helper()
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	pg := func(url string, o storage.Outcome) storage.Page {
		return storage.Page{URL: url, Site: "sina", RunID: 1, Outcome: o, Status: 200, FetchedAt: at}
	}
	commits := []*storage.Commit{
		{Page: pg("http://a/1", storage.OutcomeStored), Article: &storage.Article{URL: "http://a/1", Site: "sina", RunID: 1,
			Title: "国务院召开常务会议", Text: origText, FetchedAt: at, ContentHash: "00",
			Fingerprint: storage.Fingerprint{Simhash: 1, Signature: []uint64{1}, Length: 1}}},
		{Page: pg("http://d/1", storage.OutcomeDuplicate), Duplicate: &storage.Duplicate{URL: "http://d/1", Site: "sina", RunID: 1,
			DupOf: 1, Distance: 2, Jaccard: 0.41, Containment: 0.93, Reason: "jaccard", Title: "国务院召开常务会议部署稳就业",
			FetchedAt: at, Simhash: 3, Signature: []uint64{1}}},
		{Page: pg("http://p/1", storage.OutcomeStored), Article: &storage.Article{URL: "http://p/1", Site: "sina", RunID: 1,
			Title: "东湖冰景", Text: "图为东湖。", FetchedAt: at, ContentHash: "01",
			Fingerprint: storage.Fingerprint{Simhash: 5, Signature: []uint64{9}, Length: 2, Image: "2x2:CCGG"}}},
		{Page: pg("http://p/2", storage.OutcomeDuplicate), Duplicate: &storage.Duplicate{URL: "http://p/2", Site: "sina", RunID: 1,
			DupOf: 2, Distance: 20, Reason: "image", Title: "东湖", FetchedAt: at, Simhash: 6, Signature: []uint64{8},
			Image: "2x2:CCGY", ImageSimilarity: 0.75}},
		{Page: pg("http://q/1", storage.OutcomeStored), Article: &storage.Article{URL: "http://q/1", Site: "sina", RunID: 1,
			Title: "稳就业措施解读", Text: dupText + "\n专家表示，这些措施将在明年初见成效，各地正在制定细则。", FetchedAt: at, ContentHash: "02",
			Fingerprint: storage.Fingerprint{Simhash: 5, Signature: []uint64{1}, Length: 1},
			PartialOf:   1, OwnShare: 0.4375, Passages: []storage.Passage{{Start: 2, OtherStart: 0, Len: 9}}}},
		{Page: storage.Page{URL: "http://e/1", Site: "sina", RunID: 1, Outcome: storage.OutcomeError, Status: 404,
			ErrKind: "http_404", Err: "not found", Permanent: true, FetchedAt: at}},
		{Page: pg("http://m/1.html", storage.OutcomeStored), Article: &storage.Article{URL: "http://m/1.html", Site: "sina", RunID: 1,
			Title: "长江边小城的绿色答卷", Text: "第一页。\n第二页。", FetchedAt: at, ContentHash: "03",
			Fingerprint: storage.Fingerprint{Simhash: 7, Signature: []uint64{3}, Length: 2},
			Pages:       []string{"http://m/1.html", "http://m/1-2.html", "http://m/1-3.html"}, PagesMissing: []string{"http://m/1-3.html"}},
			Parts: []string{"http://m/1-2.html"}},
	}
	if keepText {
		commits[1].Duplicate.Text = dupText
	}
	for _, c := range commits {
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keepText bool
		url      string
		wantErr  error
		want     []string // substrings of the printed explanation
	}{
		{"duplicate with text", true, "http://d/1", nil, []string{"reason jaccard", "http://a/1", "hamming distance  2",
			"jaccard          0.410", "containment      0.930", "« 新华社北京11月20日电国务院今天召开常务会议，部署进一步稳定就业的措施。 »", "cluster:  1, 2 member(s)"}},
		{"duplicate without text", false, "http://d/1", nil, []string{"was not kept", "title overlap"}},
		{"stored", false, "http://a/1", nil, []string{"stored as article 1", "2 member(s)"}},
		{"photo page dropped on its lead image", false, "http://p/2", nil, []string{"reason image", "lead image blocks equal   0.750",
			"2x2:CCGY", "2x2:CCGG (matched page)", "duplicate when both texts are too short to compare and >= 0.95"}},
		{"partial reprint", false, "http://q/1", nil, []string{"stored as article 3", "a partial reprint of article 1", "http://a/1",
			"44% of its content words are outside the 1 passage(s)", "« 新华社北京11月20日电国务院今天召开常务会议，部署进一步稳定就业的措施。 »"}},
		{"error page", false, "http://e/1", nil, []string{"http_404: not found"}},
		{"multi-page article", false, "http://m/1.html", nil, []string{"stored as article 4", "pages:    3, text stitched in this order",
			"   1 http://m/1.html", "   2 http://m/1-2.html", "   3 http://m/1-3.html  (could not be fetched: its text is missing)"}},
		{"later page of an article", false, "http://m/1-2.html", nil, []string{"outcome:  part", "a later page of the multi-page article http://m/1.html",
			"stored as article 4", "pages:    3"}},
		{"unknown url", false, "http://x/1", storage.ErrNotFound, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := explain.Explain(context.Background(), store(t, tc.keepText), tc.url, explain.Default())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := explain.Write(&b, e); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestTitleOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"国务院召开常务会议", "快讯：国务院召开常务会议（图）", 1},
		{"国务院召开常务会议", "完全不同的标题", 0},
		{"", "标题", 0},
	} {
		t.Run(tc.a+"|"+tc.b, func(t *testing.T) {
			if got := explain.TitleOverlap(tc.a, tc.b); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
