package logging_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/logging"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name      string
		verbosity int
		format    string
		want      []string // messages that appear
		not       []string
	}{
		{"quiet", 0, "text", []string{"warned"}, []string{"skipped", "fetched"}},
		{"v", 1, "text", []string{"warned", "skipped"}, []string{"fetched"}},
		{"vv", 2, "text", []string{"warned", "skipped", "fetched"}, nil},
		{"json", 1, "json", []string{`"msg":"skipped"`, `"reason":"robots"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			log, err := logging.New(&b, tc.verbosity, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			log.Debug("fetched", "url", "http://a/")
			log.Info("skipped", "url", "http://a/x", "reason", "robots")
			log.Warn("warned")
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in %s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("unexpected %q in %s", w, out)
				}
			}
			if tc.format == "json" {
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					if !json.Valid([]byte(l)) {
						t.Errorf("not JSON: %s", l)
					}
				}
			}
		})
	}
	if _, err := logging.New(io.Discard, 0, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestAddFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    int
		format  string
		wantErr bool
	}{
		{nil, 0, "text", false},
		{[]string{"-v"}, 1, "text", false},
		{[]string{"-vv"}, 2, "text", false},
		{[]string{"-v", "-v"}, 2, "text", false},
		{[]string{"-v", "-log-format", "json"}, 1, "json", false},
		{[]string{"--log-format=xml"}, 0, "xml", true},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			f := logging.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if f.Verbosity != tc.want || f.Format != tc.format {
				t.Errorf("flags %+v, want verbosity %d format %s", f, tc.want, tc.format)
			}
			if _, err := f.Logger(io.Discard); (err != nil) != tc.wantErr {
				t.Errorf("Logger: %v", err)
			}
		})
	}
}
