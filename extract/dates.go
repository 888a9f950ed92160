package extract

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Dates outside the visible text: in the page URL (/2012-06-15/,
// /20120615/, /2012/0615/, NetEase's /12/0615/) and in scripts
// (var publishTime = "…"). Visible dates without a year ("10-08 12:00",
// "10月08日 12:00") take the year of the page's meta or URL date.
var (
	rxURLDate = []*regexp.Regexp{
		regexp.MustCompile(`/((?:19|20)\d\d)[-_/]?(\d\d)[-_/]?(\d\d)(?:/|[^\d]|$)`),
		regexp.MustCompile(`/((?:0|1|2)\d)/(\d\d)(\d\d)/`), // NetEase: /15/0612/
	}
	// rxScriptValue is the value assigned after a publish-time key in a
	// script (see scriptDate).
	rxScriptValue = regexp.MustCompile(`^["']?\s*[:=]\s*(?:escape\()?["']([0-9][0-9 :/TZ+.\-年月日]{7,30})["']`)
	// rxNoYearDate is a month-day date with a time of day and no year.
	rxNoYearDate = regexp.MustCompile(`(?:^|[^\d/.\-:年])(\d{1,2})(?:\s*月\s*|-|/)(\d{1,2})\s*日?\s*(\d{1,2})[:：](\d{2})(?:[:：](\d{2}))?`)
)

// halfYear: a completed date more than this far from its hint belongs to
// the neighbouring year (a page of 2015-12-31 showing "01-01 00:10").
const halfYear = 183 * 24 * time.Hour

// urlDate returns the date written in the page URL.
func urlDate(pageURL string) (time.Time, bool) {
	u, err := url.Parse(pageURL)
	if err != nil || u.Path == "" {
		return time.Time{}, false
	}
	for i, rx := range rxURLDate {
		m := rx.FindStringSubmatch(u.Path)
		if m == nil {
			continue
		}
		y, _ := strconv.Atoi(m[1])
		if i == 1 {
			y += 2000
		}
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if y < minYear || y > maxYear || mo < 1 || mo > 12 || d < 1 || d > 31 {
			continue
		}
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, cst)
		if t.Day() != d {
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

// noYearDate completes a year-less month-day-time match with the year of
// hint.
func noYearDate(m []string, hint time.Time) (time.Time, bool) {
	if hint.IsZero() {
		return time.Time{}, false
	}
	mo, _ := strconv.Atoi(m[1])
	d, _ := strconv.Atoi(m[2])
	hh, _ := strconv.Atoi(m[3])
	mm, _ := strconv.Atoi(m[4])
	ss := 0
	if m[5] != "" {
		ss, _ = strconv.Atoi(m[5])
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 59 {
		return time.Time{}, false
	}
	h := hint.In(cst)
	t := time.Date(h.Year(), time.Month(mo), d, hh, mm, ss, 0, cst)
	if t.Day() != d {
		return time.Time{}, false
	}
	switch {
	case t.Sub(h) > halfYear:
		t = t.AddDate(-1, 0, 0)
	case h.Sub(t) > halfYear:
		t = t.AddDate(1, 0, 0)
	}
	return t, true
}

// scriptDateKeys are the names portals give a publish time in scripts.
var scriptDateKeys = []string{"pubDate", "pubdate", "pubtime", "pubTime", "publishTime", "publishtime", "publish_time", "publishDate", "publish_date",
	"PublishTime", "ptime", "datePublished", "date_published", "createTime", "create_time", "SignDate", "signDate",
	// WeChat article pages: var ct = "1711019400" (unix seconds), which
	// their script writes into <em id="publish_time">.
	"var ct"}

// maxScriptScan bounds how much of one script is searched for a publish
// time (the keys sit in the page's settings near the top).
const maxScriptScan = 64 << 10

// scriptDate returns a publish time assigned in a script
// (var publishTime = "2015-10-08 12:00:00"), or "". A key assigned
// different times in one script describes a list of items (the
// references or related articles of the page), not the page: it is
// skipped.
func scriptDate(script string) string {
	if len(script) > maxScriptScan {
		script = script[:maxScriptScan]
	}
	for _, k := range scriptDateKeys {
		value := ""
		for from := 0; ; {
			i := strings.Index(script[from:], k)
			if i < 0 {
				break
			}
			rest := script[from+i+len(k):]
			if m := rxScriptValue.FindStringSubmatch(rest[:min(len(rest), 64)]); m != nil {
				if value != "" && m[1] != value {
					value = ""
					break
				}
				value = m[1]
			}
			from += i + len(k)
		}
		if value != "" {
			return value
		}
	}
	return ""
}

// Relative dates: pages drawn for the moment they are served show
// 刚刚, 5分钟前, 3小时前, 2天前, 今天 09:15, 昨天 10:20, 前天.
// A bare 昨天/前天 counts only as a word of its own on the line (a date
// cell, "昨天 · 新华社"), not inside a sentence or a headline.
var (
	rxRelativeDate = regexp.MustCompile(`(刚刚)|(\d{1,3})\s*(分钟|小时|天)前|(今天|昨天|前天)\s*(?:(上午|下午|晚上|凌晨|早上|中午)?\s*(\d{1,2})[:：](\d{2}))?`)
	rxBareDayWord  = regexp.MustCompile(`(?:^|[\s|·])(?:昨天|前天)(?:$|[\s|·])`)
)

// maxRelativeDays bounds "N天前": older items show a date.
const maxRelativeDays = 31

// relativeDate resolves a relative date written on a short line near the
// headline (or just before the body) against fetchedAt in loc.
func relativeDate(li lineInfo, fetchedAt time.Time, loc *time.Location) (time.Time, bool) {
	if fetchedAt.IsZero() {
		return time.Time{}, false
	}
	for i, l := range li.page {
		near := (li.titleLine >= 0 && i >= li.titleLine && i < li.titleLine+headerLines) ||
			(li.bodyLine >= 0 && i <= li.bodyLine && i > li.bodyLine-headerLines)
		if !near || li.isForeign(i) || runeLen(l) > maxMetaLineRunes {
			continue
		}
		if m := rxRelativeDate.FindStringSubmatch(l); m != nil {
			if m[4] != "" && m[6] == "" && (m[4] == "今天" || !rxBareDayWord.MatchString(l)) {
				continue
			}
			if t, ok := resolveRelative(m, fetchedAt.In(loc)); ok {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// resolveRelative turns a rxRelativeDate match into a time relative to now.
func resolveRelative(m []string, now time.Time) (time.Time, bool) {
	day := func(back int) time.Time {
		y, mo, d := now.AddDate(0, 0, -back).Date()
		return time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	}
	switch {
	case m[1] != "":
		return now.Truncate(time.Minute), true
	case m[2] != "":
		n, _ := strconv.Atoi(m[2])
		switch m[3] {
		case "分钟":
			return now.Add(-time.Duration(n) * time.Minute).Truncate(time.Minute), true
		case "小时":
			return now.Add(-time.Duration(n) * time.Hour).Truncate(time.Minute), true
		}
		if n > maxRelativeDays {
			return time.Time{}, false
		}
		return day(n), true
	}
	t := day(map[string]int{"今天": 0, "昨天": 1, "前天": 2}[m[4]])
	if m[6] != "" {
		hh, _ := strconv.Atoi(m[6])
		mm, _ := strconv.Atoi(m[7])
		if hh < 12 && (m[5] == "下午" || m[5] == "晚上") {
			hh += 12
		}
		if hh > 23 || mm > 59 {
			return time.Time{}, false
		}
		t = t.Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
	}
	return t, true
}

// inSiteZone reads a time written without a zone (parsed in cst, the
// default) on the wall clock of the site's zone loc; a time whose zone
// the page stated, or an instant (unix seconds, cstInstant), is kept.
func inSiteZone(t time.Time, loc *time.Location) time.Time {
	if t.IsZero() || loc == cst || t.Location() != cst {
		return t
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
}
