package labcli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/cli"
)

type result struct {
	code           int
	stdout, stderr string
}

func runMain(args ...string) result {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

func TestHelpTexts(t *testing.T) {
	for _, c := range commands() {
		if c.name == "eval" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := runMain(c.name, "-h")
			if r.code != cli.ExitOK {
				t.Fatalf("exit %d", r.code)
			}
			for _, w := range []string{"usage: newscrawl-lab " + c.name, "Examples:", "Flags:", "Exit codes: 0 done"} {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("missing %q in stdout:\n%s", w, r.stdout)
				}
			}
			if r.stderr != "" {
				t.Errorf("help on stderr:\n%s", r.stderr)
			}
			if docs[c.name].description == "" {
				t.Error("no description")
			}
		})
	}
	t.Run("eval", func(t *testing.T) {
		r := runMain("eval", "--help")
		if r.code != cli.ExitOK || strings.Contains(r.stdout+r.stderr, "Usage of eval dedup") || !strings.Contains(r.stdout, "subcommands:") {
			t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no command", nil, cli.ExitUsage, ""},
		{"help", []string{"help"}, cli.ExitOK, ""},
		{"unknown command", []string{"crawl"}, cli.ExitUsage, `newscrawl-lab: unknown command "crawl"`},
		{"unknown eval", []string{"eval", "nope"}, cli.ExitUsage, "unknown subcommand"},
		{"bad flag", []string{"eval", "goldset", "--nope"}, cli.ExitUsage, "flag provided but not defined"},
		{"bad value", []string{"eval", "psimhash", "--k", "99"}, cli.ExitUsage, "newscrawl-lab eval: eval psimhash: --k: \"99\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not mention %q:\n%s", tc.want, r.stderr)
			}
		})
	}
}

func TestLearnAntecedentsWritesOnlyWhereTold(t *testing.T) {
	r := runMain("learn-antecedents", "-h")
	if !strings.Contains(r.stdout, "-out string") || strings.Contains(r.stdout, `(default "segment/antecedents.txt")`) {
		t.Errorf("learn-antecedents writes to a tracked file by default:\n%s", r.stdout)
	}
}
