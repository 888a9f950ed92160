package config

import (
	"errors"
	"strings"
	"testing"
)

func TestSiteTimezone(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		wantZone    string // "" for no Location
		wantErr     string
	}{
		{"default", "", "", ""},
		{"hong kong", "timezone: Asia/Hong_Kong", "Asia/Hong_Kong", ""},
		{"unknown", "timezone: Mars/Olympus", "", "sites[0].timezone (line 6): unknown time zone"},
		{"local is not a site zone", "timezone: Local", "", "sites[0].timezone (line 6): unknown time zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(site + "    " + tc.value + "\n"))
			if tc.wantErr != "" {
				var ve *ValidationError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if l := c.Sites[0].Location; l != nil {
				got = l.String()
			}
			if got != tc.wantZone {
				t.Errorf("location %q, want %q", got, tc.wantZone)
			}
		})
	}
}
