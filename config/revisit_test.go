package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRevisitKeys: the fetch keys of incremental runs parse, default and
// report bad values with their path and line.
func TestRevisitKeys(t *testing.T) {
	tests := []struct {
		name  string
		fetch string
		check func(f Fetch) bool
		err   string // "" when valid
	}{
		{"defaults", "", func(f Fetch) bool {
			return f.GoneRetry.D() == DefaultGoneRetry && f.ListInterval == 0 && f.ListBackoffAfter == DefaultListBackoffAfter &&
				f.ListBackoffBase.D() == DefaultListBackoffBase && f.ListBackoffMax.D() == DefaultListBackoffMax
		}, ""},
		{"set", "fetch: {gone_retry: 72h, list_interval: 10m, list_backoff_after: 3, list_backoff_base: 20m, list_backoff_max: 12h}\n",
			func(f Fetch) bool {
				return f.GoneRetry.D() == 72*time.Hour && f.ListInterval.D() == 10*time.Minute && f.ListBackoffAfter == 3 &&
					f.ListBackoffBase.D() == 20*time.Minute && f.ListBackoffMax.D() == 12*time.Hour
			}, ""},
		{"gone_retry 0: never", "fetch: {gone_retry: 0s}\n", func(f Fetch) bool { return f.GoneRetry == 0 }, ""},
		{"negative gone_retry", "fetch: {gone_retry: -1h}\n", nil, "fetch.gone_retry (line 1): must be >= 0"},
		{"negative list_interval", "fetch: {list_interval: -1m}\n", nil, "fetch.list_interval (line 1): must be >= 0"},
		{"list_backoff_after 0", "fetch: {list_backoff_after: 0}\n", nil, "fetch.list_backoff_after (line 1): must be in [1, 1000]"},
		{"list_backoff_base 0", "fetch: {list_backoff_base: 0s}\n", nil, "fetch.list_backoff_base (line 1): must be > 0"},
		{"max below base", "fetch:\n  list_backoff_base: 1h\n  list_backoff_max: 30m\n", nil, "fetch.list_backoff_max (line 3): must be >= fetch.list_backoff_base"},
		{"unknown key", "fetch: {gone_retyr: 1h}\n", nil, "gone_retyr"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.fetch + site))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !tc.check(c.Fetch) {
					t.Fatalf("fetch = %+v", c.Fetch)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.err)
			}
			var ve *ValidationError
			if tc.name != "unknown key" && !errors.As(err, &ve) {
				t.Fatalf("want a ValidationError, got %T", err)
			}
		})
	}
}
