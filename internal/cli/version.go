package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("version: unexpected arguments %q", fs.Args())
	}
	fmt.Fprintln(stdout, versionString())
	return nil
}

// versionString is "newscrawl VERSION (go GOVERSION, REVISION[, modified] TIME)"
// from the build information the Go toolchain embeds.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "newscrawl (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := fmt.Sprintf("newscrawl %s (%s", v, bi.GoVersion)
	if rev != "" {
		out += ", " + rev + dirty
		if at != "" {
			out += " " + at
		}
	}
	return out + ")"
}
