// Package version tells which build of xk6-llmstream and analyze is running:
// the release version, the commit it was built from and the Go toolchain.
//
// Version and Commit may be set at link time:
//
//	go build -ldflags "-X github.com/llmstream/xk6-llmstream/internal/version.Version=0.2.0 \
//	  -X github.com/llmstream/xk6-llmstream/internal/version.Commit=$(git rev-parse HEAD)" ./xk6-llmstream ./analyze
//
// Otherwise the commit comes from the build information Go embeds when it builds
// in a git checkout (vcs.revision; not with -buildvcs=false), and a binary
// installed with `go install module@vX.Y.Z` reports that module version.
package version

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is the release version of the binaries and of llmstream.js (its
// VERSION export); the two must match.
var Version = "0.2.0"

// Commit is the git commit the binary was built from, when set at link time.
var Commit = ""

// Info describes one build.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"` // "unknown" when neither -ldflags nor vcs.revision gives it
	// NoCommitWhy says why Commit is unknown (text output only).
	NoCommitWhy string `json:"-"`
	Modified    bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	CommitAt    string `json:"commit_time,omitempty"`
	Module      string `json:"module,omitempty"`         // module path of the main package
	ModuleVer   string `json:"module_version,omitempty"` // "(devel)" for a build from a checkout
	GoVersion   string `json:"go"`
	Platform    string `json:"platform"`
}

// Get returns the Info of the running binary.
func Get() Info {
	return fromBuildInfo(debug.ReadBuildInfo())
}

// fromBuildInfo is Get with the build information given (ok false: none).
func fromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	in := Info{Version: Version, Commit: Commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok && bi != nil {
		in.GoVersion = bi.GoVersion
		in.Module = bi.Main.Path
		in.ModuleVer = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if in.Commit == "" {
					in.Commit = s.Value
				}
			case "vcs.modified":
				in.Modified = s.Value == "true"
			case "vcs.time":
				in.CommitAt = s.Value
			}
		}
	}
	if in.Commit == "" {
		in.Commit = "unknown"
		in.NoCommitWhy = "built without VCS information: -buildvcs=false (see go env GOFLAGS), or not from a git checkout; " +
			"set it with -ldflags \"-X github.com/llmstream/xk6-llmstream/internal/version.Commit=$(git rev-parse HEAD)\""
	}
	return in
}

// Write prints the Info of the program named name, one field a line.
func Write(w io.Writer, name string, in Info) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", name, in.Version)
	commit := in.Commit
	if in.Modified {
		commit += " (modified)"
	}
	if in.NoCommitWhy != "" {
		commit += " (" + in.NoCommitWhy + ")"
	}
	fmt.Fprintf(&b, "  commit:  %s\n", commit)
	if in.CommitAt != "" {
		fmt.Fprintf(&b, "  date:    %s\n", in.CommitAt)
	}
	if in.Module != "" {
		fmt.Fprintf(&b, "  module:  %s %s\n", in.Module, in.ModuleVer)
	}
	fmt.Fprintf(&b, "  go:      %s %s\n", in.GoVersion, in.Platform)
	_, err := io.WriteString(w, b.String())
	return err
}
