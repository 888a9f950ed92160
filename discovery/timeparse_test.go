package discovery

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	utc := time.UTC
	for _, tc := range []struct {
		name, in string
		loc      *time.Location
		want     time.Time // zero: not a time
	}{
		{"unix seconds", "1716170400", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"unix ms", "1716170400123", nil, time.Date(2024, 5, 20, 10, 0, 0, 123e6, cst)},
		{"unix seconds with fraction", "1716170400.5", nil, time.Date(2024, 5, 20, 10, 0, 0, 5e8, cst)},
		{"netease", "05/20/2024 10:00:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"netease in utc", "05/20/2024 10:00:00", utc, time.Date(2024, 5, 20, 10, 0, 0, 0, utc)},
		{"dash form", "2024-05-20 10:00:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"dash form no seconds", "2024-05-20 10:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"date only", "2024-05-20", nil, time.Date(2024, 5, 20, 0, 0, 0, 0, cst)},
		{"chinese form", "2024年05月20日 10:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rfc3339", "2024-05-20T10:00:00+08:00", utc, time.Date(2024, 5, 20, 2, 0, 0, 0, utc)},
		{"rfc3339 Z fraction", "2024-05-20T02:00:00.250Z", nil, time.Date(2024, 5, 20, 2, 0, 0, 25e7, utc)},
		{"w3c no seconds", "2024-05-20T10:00+08:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rfc1123 GMT", "Mon, 20 May 2024 02:00:00 GMT", nil, time.Date(2024, 5, 20, 2, 0, 0, 0, utc)},
		{"rfc1123z", "Mon, 20 May 2024 10:00:00 +0800", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rss single-digit day", "Mon, 6 May 2024 10:00:00 +0800", nil, time.Date(2024, 5, 6, 10, 0, 0, 0, cst)},
		{"rss CST means the location's CST", "Mon, 20 May 2024 10:00:00 CST", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rfc822", "20 May 24 10:00 +0800", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rss GMT+8", "Mon, 20 May 2024 10:00:00 GMT+8", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"rss GMT+08:00", "Mon, 20 May 2024 10:00:00 GMT+08:00", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"UTC-0500", "Mon, 20 May 2024 10:00:00 UTC-0500", nil, time.Date(2024, 5, 20, 15, 0, 0, 0, utc)},
		{"java timestamp", "2024-05-20 10:00:00.0", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"unpadded", "2024-5-20 9:05", nil, time.Date(2024, 5, 20, 9, 5, 0, 0, cst)},
		{"netease unpadded", "5/2/2024 10:00:00", nil, time.Date(2024, 5, 2, 10, 0, 0, 0, cst)},
		{"chinese with seconds", "2024年5月20日10:00:05", nil, time.Date(2024, 5, 20, 10, 0, 5, 0, cst)},
		{"bad GMT offset", "Mon, 20 May 2024 10:00:00 GMT+x", nil, time.Time{}},
		{"extra spaces", "  2024-05-20   10:00:00 ", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"compact", "20240520100000", nil, time.Date(2024, 5, 20, 10, 0, 0, 0, cst)},
		{"empty", "", nil, time.Time{}},
		{"zero", "0", nil, time.Time{}},
		{"short number", "20240520", nil, time.Time{}},
		{"negative", "-1716170400", nil, time.Time{}},
		{"relative", "1小时前", nil, time.Time{}},
		{"garbage", "yesterday-ish", nil, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseTime(tc.in, tc.loc)
			if tc.want.IsZero() {
				if ok {
					t.Errorf("ParseTime(%q) = %v, want none", tc.in, got)
				}
				return
			}
			if !ok || !got.Equal(tc.want) {
				t.Errorf("ParseTime(%q) = %v %v, want %v", tc.in, got, ok, tc.want)
			}
		})
	}
}
