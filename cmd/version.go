package cmd

import (
	"runtime/debug"
	"strings"
)

// Version is the module version from the build info ("(devel)" for a
// source build, whose revision VersionLine adds).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// VersionLine is the version with the VCS revision, its time and whether
// the tree was modified, as the build info records them.
func VersionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version()
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
	parts := []string{Version()}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "("+rev+" "+at+dirty+")")
	}
	parts = append(parts, bi.GoVersion)
	return strings.Join(parts, " ")
}
