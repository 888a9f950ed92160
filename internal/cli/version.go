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

// linkedVersion is the version a release build sets with
// -ldflags "-X github.com/newsdedup/newscrawl/internal/cli.linkedVersion=v1.2.3";
// it is written by the linker only, never at run time.
var linkedVersion string

// versionString is "newscrawl VERSION (GOVERSION, REVISION[, modified]
// TIME; version from SOURCE)" from the build information the Go toolchain
// embeds and linkedVersion.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return formatVersion(bi, linkedVersion)
}

// devel is the module version the toolchain records when it knows none
// (a build from a work tree with -buildvcs=false, or without VCS).
const devel = "(devel)"

// formatVersion picks the version and says where it came from: the
// -ldflags -X value when one was linked in (the builder said so), else the
// module version the toolchain recorded (go install module@version, or
// derived from the VCS tag and revision), else "(devel)" with the reason.
func formatVersion(bi *debug.BuildInfo, linked string) string {
	v, from := devel, "nowhere: the build recorded no module version (no VCS stamp, as with -buildvcs=false) and no -ldflags -X github.com/newsdedup/newscrawl/internal/cli.linkedVersion=VERSION"
	switch {
	case linked != "":
		v, from = linked, "-ldflags -X"
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != devel:
		v, from = bi.Main.Version, "the module version"
	}
	if bi == nil {
		return fmt.Sprintf("newscrawl %s (no build information; version from %s)", v, from)
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
	return out + "; version from " + from + ")"
}
