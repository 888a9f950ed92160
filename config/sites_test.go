package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestShippedSiteFiles keeps the site files in configs/ valid.
func TestShippedSiteFiles(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "configs", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no site files in configs/")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestShippedArticlePatterns(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	c, err := Load(filepath.Join(filepath.Dir(here), "..", "configs", "sites.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"sina":    {"https://news.sina.com.cn/c/2024-11-20/doc-incwxyz1234567.shtml", "https://news.sina.com.cn/w/2012-06-15/doc-ifyeimzx1234567.shtml"},
		"sohu":    {"https://www.sohu.com/a/825871234_121123456"},
		"qq":      {"https://news.qq.com/rain/a/20241120A01ABC00", "https://new.qq.com/rain/a/20241120A01ABC00"},
		"netease": {"https://www.163.com/news/article/JH2ABCDE000189FH.html", "https://www.163.com/dy/article/JH2ABCDE0512B07B.html", "https://news.163.com/12/0615/08/8PTE7SEI0025UESY.html"},
		"people":  {"http://politics.people.com.cn/n1/2024/1120/c1001-40123456.html", "http://politics.people.com.cn/n1/2024/1120/c1001-40123456-2.html", "http://world.people.com.cn/n1/2024/1120/c1002-40123457.html"},
	}
	if len(c.Sites) != len(cases) {
		t.Errorf("%d sites in configs/sites.yaml, want the %d portals %v", len(c.Sites), len(cases), cases)
	}
	for _, s := range c.Sites {
		for _, u := range cases[s.Name] {
			if !s.ArticleRe.MatchString(u) {
				t.Errorf("%s: article_url does not match %s", s.Name, u)
			}
		}
		for _, u := range s.StartURLs {
			if s.ArticleRe.MatchString(u) {
				t.Errorf("%s: start URL %s matches article_url", s.Name, u)
			}
		}
		if len(s.Sitemaps)+len(s.Feeds)+len(s.APIs) == 0 {
			t.Errorf("%s: no sitemap, feed or api: the portal's lists are not read", s.Name)
		}
	}
}
