package version

import (
	"bytes"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.1",
		Main:      debug.Module{Path: "github.com/llmstream/xk6-llmstream", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"},
			{Key: "vcs.modified", Value: "true"},
			{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"},
		},
	}
	in := fromBuildInfo(bi, true)
	if in.Commit != "0123456789abcdef" || !in.Modified || in.GoVersion != "go1.26.1" || in.Version != Version {
		t.Errorf("info %+v", in)
	}
	var out bytes.Buffer
	if err := Write(&out, "analyze", in); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"analyze " + Version + "\n", "commit:  0123456789abcdef (modified)", "go:      go1.26.1", "module:  github.com/llmstream/xk6-llmstream (devel)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// -ldflags wins over vcs.revision; nothing at all says unknown.
	old := Commit
	Commit = "feedface"
	defer func() { Commit = old }()
	if got := fromBuildInfo(bi, true).Commit; got != "feedface" {
		t.Errorf("commit %q, want the link-time one", got)
	}
	Commit = ""
	if got := fromBuildInfo(nil, false).Commit; got != "unknown" {
		t.Errorf("commit %q without build info, want unknown", got)
	}
	// An unknown commit says why, and how to set it.
	out.Reset()
	Write(&out, "analyze", fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.1"}, true))
	if s := out.String(); !strings.Contains(s, "commit:  unknown (built without VCS information: -buildvcs=false") || !strings.Contains(s, "version.Commit=$(git rev-parse HEAD)") {
		t.Errorf("unknown commit without a reason:\n%s", s)
	}
}

// TestVersionMatchesModule: the binaries and llmstream.js carry one version.
// The value lives in xk6-llmstream/js/lib/version.js (the Client sends it with every
// request); the entry re-exports it.
func TestVersionMatchesModule(t *testing.T) {
	src, err := os.ReadFile("../../xk6-llmstream/js/lib/version.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const VERSION = '([^']+)'`).FindSubmatch(src)
	if m == nil {
		t.Fatal("xk6-llmstream/js/lib/version.js exports no VERSION = '...'")
	}
	if string(m[1]) != Version {
		t.Errorf("xk6-llmstream/js/lib/version.js VERSION %q, version.Version %q: they must match", m[1], Version)
	}
	entry, err := os.ReadFile("../../xk6-llmstream/js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^export \{ VERSION \} from './lib/version.js';$`).Match(entry) {
		t.Error("xk6-llmstream/js/llmstream.js does not re-export VERSION from './lib/version.js'")
	}
}
