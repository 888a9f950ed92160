package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("sites:\n  - name: a\n    start_urls: [\"https://a.example/\"]\n    allowed_domains: [a.example]\n    article_url: '('\n    delay: -1s\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no command", nil, exitUsage, ""},
		{"help", []string{"help"}, exitOK, ""},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"flag help", []string{"crawl", "-h"}, exitOK, ""}, // on stdout: below
		{"bad flag", []string{"export", "--nope"}, exitUsage, "flag provided but not defined"},
		{"missing site file", []string{"crawl", "--site", filepath.Join(dir, "none.yaml")}, exitUsage, "no such file"},
		{"invalid config", []string{"crawl", "--site", bad}, exitUsage, "sites[0].delay (line 6): must be >= 0"},
		{"invalid config names every problem", []string{"crawl", "--site", bad}, exitUsage, "sites[0].article_url (line 5): invalid regexp"},
		{"export of a missing store", []string{"export", "--db", filepath.Join(dir, "none.db")}, exitNoStore, "no newscrawl store at"},
		{"eval is the lab's", []string{"eval", "goldset"}, exitUsage, `unknown command "eval"`},
		{"dedup without input", []string{"dedup"}, exitUsage, "--in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr does not mention %q:\n%s", tc.want, errb.String())
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run([]string{"crawl", "-h"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "-site") || errb.Len() > 0 {
		t.Errorf("crawl -h: exit %d, want the help on stdout:\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
