package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestFormatVersion: a build without a module version ((devel), as with
// -buildvcs=false) takes the -ldflags -X value, and the line says which
// source the version came from.
func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "245a341"}, {Key: "vcs.time", Value: "2026-11-27T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name   string
		bi     *debug.BuildInfo
		linked string
		want   []string
	}{
		{"-buildvcs=false with -ldflags", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: devel}}, "v1.4.0",
			[]string{"newscrawl v1.4.0 (go1.26.8; version from -ldflags -X)"}},
		{"-ldflags wins over the module version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261127080000-245a341+dirty"}, Settings: vcs}, "v1.4.0",
			[]string{"newscrawl v1.4.0 (go1.26.8, 245a341, modified 2026-11-27T08:00:00Z; version from -ldflags -X)"}},
		{"module version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.3.0"}}, "",
			[]string{"newscrawl v1.3.0 (go1.26.8; version from the module version)"}},
		{"-buildvcs=false without -ldflags", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: devel}}, "",
			[]string{"newscrawl (devel) (go1.26.8; version from nowhere: the build recorded no module version", "-ldflags -X github.com/newsdedup/newscrawl/internal/cli.linkedVersion="}},
		{"no build information", nil, "v1.4.0", []string{"newscrawl v1.4.0 (no build information; version from -ldflags -X)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := formatVersion(tc.bi, tc.linked)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}
