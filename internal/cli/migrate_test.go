package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestMigrateExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no target", []string{"migrate", "--from", filepath.Join(dir, "a.db")}, ExitUsage, "--to must be a postgres:// URL"},
		{"file target", []string{"migrate", "--to", filepath.Join(dir, "b.db")}, ExitUsage, "--to must be a postgres:// URL"},
		{"url source", []string{"migrate", "--from", "postgres://x/y", "--to", "postgres://x/z"}, ExitUsage, "--from must be a SQLite file"},
		{"extra argument", []string{"migrate", "--to", "postgres://x/z", "extra"}, ExitUsage, "unexpected arguments"},
		{"missing source", []string{"migrate", "--from", filepath.Join(dir, "none.db"), "--to", "postgres://u:s3cret@127.0.0.1:1/x"}, ExitNoStore, "no newscrawl store at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Main(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr does not mention %q:\n%s", tc.want, errb.String())
			}
			if strings.Contains(errb.String(), "s3cret") {
				t.Errorf("stderr shows the password:\n%s", errb.String())
			}
		})
	}
}
