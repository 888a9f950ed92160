// Package sample builds a small in-memory store with what the views of a
// corpus must show: two runs over three sites, clusters of reprints with
// their verdicts (and texts), errors of several kinds, and stored text that
// carries markup (the web is untrusted). Tests of the report, the web view
// and the exports share it.
package sample

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/storage"
)

// Hostile strings planted in stored fields: a view that does not escape
// them would run script.
const (
	ScriptTitle = `<script>alert("title")</script>国务院常务会议`
	ScriptText  = "正文第一段<script>alert('body')</script>新华社北京11月20日电国务院今天召开常务会议。"
	ScriptSite  = `<img src=x onerror=alert(1)>`
)

// Start is the time of the first run.
var Start = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// Story texts: each is long enough for passages to be marked.
var stories = []string{
	"新华社北京11月20日电国务院总理今天主持召开国务院常务会议，部署进一步稳定就业的措施，确定支持小微企业发展的政策。\n会议指出，就业是最大的民生，要加大对企业的支持力度，稳住经济大盘。\n会议要求各地区各部门抓好落实。",
	"本报讯 记者从市交通委获悉，地铁十九号线北段将于本月底开通试运营，全线共设车站十座，运营初期行车间隔为六分钟。\n交通委表示，开通后将有效缓解北部地区的出行压力。",
	"中新网上海11月21日电 第九届中国国际进口博览会今天闭幕，按一年计意向成交金额创历届新高，参展企业数量超过三千家。\n组委会表示，明年的展会筹备工作已经启动。",
	"央视新闻消息，受冷空气影响，北方大部地区气温将下降八到十度，局地降温超过十二度，并伴有大风天气。\n气象部门提醒公众注意防寒保暖，合理安排出行。",
}

// Fill writes the sample's runs and pages into s, an empty store of any
// implementation (memory for unit tests, a SQLite file for the command
// tests). Run 1 stores one article per story on "sina" and records reprints
// from "sohu" as duplicates; run 2 adds a stored article from the hostile
// site, its reprint and errors. Every duplicate keeps its text.
func Fill(ctx context.Context, s storage.Store) error {
	f := &filler{ctx: ctx, s: s, at: Start}
	if err := f.run(0, f.firstRun); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	if err := f.run(1, f.secondRun); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	return nil
}

var titles = []string{"国务院部署稳就业措施", "地铁十九号线北段月底开通", "进博会闭幕成交额创新高", "北方大部地区将迎降温"}

type filler struct {
	ctx context.Context
	s   storage.Store
	at  time.Time
	ids []int64 // run 1's stored articles, one per story
}

func (f *filler) tick() time.Time { f.at = f.at.Add(37 * time.Second); return f.at }

// run begins run n (day n after Start), runs body and finishes the run
// with the counts of the pages it recorded.
func (f *filler) run(n int, body func(run int64) error) error {
	r, err := f.s.BeginRun(f.ctx, "configs/sites.yaml")
	if err != nil {
		return err
	}
	f.at = Start.Add(time.Duration(n) * 24 * time.Hour)
	if err := body(r.ID); err != nil {
		return err
	}
	r.FinishedAt, r.Status = f.tick(), storage.RunCompleted
	gone := map[string]int64{} // per site, as a crawl records its "gone" counter
	var sites []string
	err = f.s.Pages(f.ctx, func(p storage.Page) error {
		if p.RunID != r.ID {
			return nil
		}
		if _, ok := gone[p.Site]; !ok {
			sites = append(sites, p.Site)
			gone[p.Site] = 0
		}
		r.Stats.Fetched++
		switch p.Outcome {
		case storage.OutcomeStored:
			r.Stats.Stored++
		case storage.OutcomeDuplicate:
			r.Stats.Duplicates++
		case storage.OutcomeNotArticle:
			r.Stats.NotArticle++
		case storage.OutcomeError:
			r.Stats.Errors++ // errors and gone pages, as a crawl's run record counts them
			if progress.IsGone(p.ErrKind) {
				gone[p.Site]++
			}
		case storage.OutcomePart:
			r.Stats.Parts++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range sites {
		r.Stats.Sites = append(r.Stats.Sites, storage.SiteCounters{Site: s, Counters: map[string]int64{"gone": gone[s]}})
	}
	return f.s.FinishRun(f.ctx, r)
}

func (f *filler) page(url, site string, run int64, o storage.Outcome) storage.Page {
	return storage.Page{URL: url, Site: site, RunID: run, Outcome: o, Status: 200, FetchedAt: f.tick()}
}

func (f *filler) store(url, site string, run int64, title, text string, sim uint64) (int64, error) {
	a := &storage.Article{URL: url, Site: site, RunID: run, Title: title, Text: text, Source: "新华社",
		Author: "记者", Editor: "张三", PublishedAt: f.at.Add(-time.Hour), ContentHash: fmt.Sprintf("%064x", sim),
		Fingerprint: storage.Fingerprint{Simhash: sim, Signature: []uint64{sim, sim + 1}, Length: 40}}
	p := f.page(url, site, run, storage.OutcomeStored)
	a.FetchedAt = p.FetchedAt
	err := f.s.Commit(f.ctx, &storage.Commit{Page: p, Article: a})
	return a.ID, err
}

// verdict is the evidence of a sample duplicate.
type verdict struct {
	dist   int
	j, c   float64
	reason string
}

func (f *filler) dup(url, site string, run, of int64, title, text string, v verdict) error {
	p := f.page(url, site, run, storage.OutcomeDuplicate)
	return f.s.Commit(f.ctx, &storage.Commit{Page: p, Duplicate: &storage.Duplicate{URL: url, Site: site, RunID: run, DupOf: of,
		Distance: v.dist, Jaccard: v.j, Containment: v.c, Reason: v.reason, Title: title, Text: text, FetchedAt: p.FetchedAt,
		Simhash: uint64(of), Signature: []uint64{1, 2}, Source: "新华社"}})
}

func (f *filler) fail(url, site string, run int64, status int, kind string) error {
	p := f.page(url, site, run, storage.OutcomeError)
	p.Status, p.ErrKind, p.Err, p.Permanent = status, kind, kind+" on "+url, status >= 400 && status < 500
	return f.s.Commit(f.ctx, &storage.Commit{Page: p})
}

func (f *filler) firstRun(r int64) error {
	for i, t := range stories {
		id, err := f.store(fmt.Sprintf("https://news.sina.com.cn/c/2026-11-20/doc-%d.shtml", i), "sina", r, titles[i], t, uint64(0x1000*(i+1)))
		if err != nil {
			return err
		}
		f.ids = append(f.ids, id)
		list := f.page(fmt.Sprintf("https://news.sina.com.cn/roll/%d", i), "sina", r, storage.OutcomeNotArticle)
		if err := f.s.Commit(f.ctx, &storage.Commit{Page: list}); err != nil {
			return err
		}
	}
	for i, t := range stories[:3] {
		v := verdict{dist: i, j: 0.5 + 0.1*float64(i), c: 0.95, reason: "jaccard"}
		if err := f.dup(fmt.Sprintf("https://www.sohu.com/a/%d", 100+i), "sohu", r, f.ids[i], titles[i], "转载："+t, v); err != nil {
			return err
		}
	}
	brief := strings.SplitN(stories[0], "\n", 2)[0]
	if err := f.dup("https://www.sohu.com/a/200", "sohu", r, f.ids[0], "快讯："+titles[0], brief, verdict{9, 0.28, 0.97, "containment"}); err != nil {
		return err
	}
	return f.fail("https://www.sohu.com/a/404", "sohu", r, 404, "http_404")
}

func (f *filler) secondRun(r int64) error {
	id, err := f.store("https://news.163.com/26/1121/x.html", ScriptSite, r, ScriptTitle, ScriptText+"\n"+stories[0], 0x9000)
	if err != nil {
		return err
	}
	if err := f.dup("https://news.qq.com/a/1", "qq", r, id, ScriptTitle, ScriptText, verdict{1, 0.8, 0.9, "jaccard"}); err != nil {
		return err
	}
	if err := f.dup("https://news.qq.com/a/2", "qq", r, f.ids[1], titles[1], stories[1], verdict{0, 1, 1, "exact"}); err != nil {
		return err
	}
	for i, k := range []string{"timeout", "too_large", "timeout"} {
		if err := f.fail(fmt.Sprintf("https://news.qq.com/e/%d", i), "qq", r, 0, k); err != nil {
			return err
		}
	}
	return nil
}
