package discovery

import (
	"strconv"
	"strings"
	"time"
)

// chinaOffset is the offset of China Standard Time (UTC+8, no daylight
// saving since 1991), the zone of the portals' zone-less times. A fixed
// zone needs no tzdata on the machine.
const chinaOffset = 8 * 60 * 60

func chinaZone() *time.Location { return time.FixedZone("CST", chinaOffset) }

// msThreshold separates unix seconds from milliseconds: 1e11 seconds is
// the year 5138, 1e11 milliseconds is 1973.
const msThreshold = 100_000_000_000

// zonedLayouts carry their own zone.
func zonedLayouts() []string {
	return []string{
		time.RFC3339Nano,
		"2006-01-02T15:04Z07:00", // W3C datetime without seconds (sitemaps)
		"2006-01-02T15:04:05Z0700",
		"2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05 -0700",
		time.RFC1123Z,
		time.RFC1123,
		"Mon, 2 Jan 2006 15:04:05 -0700",
		"Mon, 2 Jan 2006 15:04:05 MST",
		"Mon, 2 Jan 2006 15:04 -0700",
		"Mon, 2 Jan 2006 15:04 MST",
		"Mon,2 Jan 2006 15:04:05 -0700",
		"2 Jan 2006 15:04:05 -0700",
		"2 Jan 2006 15:04:05 MST",
		time.RFC822Z,
		time.RFC822,
		time.RFC850,
		time.UnixDate,
		time.ANSIC,
	}
}

// localLayouts have no zone and are read in the given location. Month,
// day and hour without padding also read padded values ("2024-5-20 9:05"
// and "2024-05-20 09:05"), and a fraction after the seconds is accepted
// ("2024-05-20 10:00:00.0", as Java services print timestamps).
func localLayouts() []string {
	return []string{
		"2006-1-2 15:04:05",
		"2006-1-2T15:04:05",
		"2006-1-2 15:04",
		"2006-1-2T15:04",
		"2006-1-2",
		"1/2/2006 15:04:05", // NetEase cm_ lists
		"1/2/2006 15:04",
		"2006/1/2 15:04:05",
		"2006/1/2 15:04",
		"2006/1/2",
		"2006年1月2日 15:04:05",
		"2006年1月2日 15:04",
		"2006年1月2日15:04:05",
		"2006年1月2日15:04",
		"2006年1月2日",
		"20060102150405",
	}
}

// ParseTime reads the times list surfaces give: unix seconds or
// milliseconds (digits, optionally with a fraction), NetEase's
// "05/20/2024 10:00:00", "2024-05-20 10:00:00", RFC 3339 and W3C datetime
// ("2024-05-20T10:00:00+08:00"), and the RFC 1123/RFC 822 forms of RSS.
// Times without a zone are read in loc (nil: China Standard Time, UTC+8,
// the portals' zone). It reports false for anything else, and for unix
// times at or before the epoch.
func ParseTime(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if loc == nil {
		loc = chinaZone()
	}
	if t, ok := parseUnix(s); ok {
		return t.In(loc), true
	}
	s = gmtOffset(strings.Join(strings.Fields(s), " "))
	for _, l := range zonedLayouts() {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	for _, l := range localLayouts() {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// maxUnixDigits: 13 digits of milliseconds reach the year 2286; longer
// digit runs are compact dates (20240520100000), not unix times.
const maxUnixDigits = 13

// parseUnix reads unix seconds or milliseconds; a value of 8 or fewer
// digits is not taken as a time (a date like 20240520 is not 1970).
func parseUnix(s string) (time.Time, bool) {
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) < 9 || len(intPart) > maxUnixDigits || !allDigits(intPart) || (frac != "" && !allDigits(frac)) {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	if n >= msThreshold {
		return time.UnixMilli(n), true
	}
	ns := int64(0)
	if frac != "" {
		f, _ := strconv.ParseFloat("0."+frac, 64)
		ns = int64(f * 1e9)
	}
	return time.Unix(n, ns), true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// gmtOffset rewrites a trailing "GMT+8", "GMT+08:00" or "UTC+0800" zone,
// which some Chinese feeds write, as a numeric offset ("+0800").
func gmtOffset(s string) string {
	i := strings.LastIndex(s, " ")
	zone := s[i+1:]
	if len(zone) < 5 || !(strings.HasPrefix(zone, "GMT") || strings.HasPrefix(zone, "UTC")) || (zone[3] != '+' && zone[3] != '-') {
		return s
	}
	h, m, _ := strings.Cut(zone[4:], ":")
	if m == "" && len(h) == 4 {
		h, m = h[:2], h[2:]
	}
	if m == "" {
		m = "00"
	}
	if len(h) == 0 || len(h) > 2 || len(m) != 2 || !allDigits(h) || !allDigits(m) {
		return s
	}
	if len(h) == 1 {
		h = "0" + h
	}
	return s[:i+1] + zone[3:4] + h + m
}
