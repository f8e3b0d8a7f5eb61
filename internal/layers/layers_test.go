package layers

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goList runs `go list` in the module root and returns its output lines.
// It first stats every Go file of the module, so that go test's cache, which
// tracks the files a test opens or stats (not what a child process reads),
// reruns these tests when a file changes.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	if err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH (%v): the import graph cannot be listed", err)
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, msg)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestModuleImportGraph holds every package's non-test imports against the
// layer table.
func TestModuleImportGraph(t *testing.T) {
	graph := map[string][]string{}
	for _, line := range goList(t, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...") {
		f := strings.Fields(line)
		graph[f[0]] = f[1:]
	}
	if len(graph) < 30 {
		t.Fatalf("go list found %d packages: the listing is broken", len(graph))
	}
	for _, v := range Check(graph) {
		t.Errorf("forbidden import: %s", v)
	}
	// Every placed package exists, so the table does not rot.
	for rel := range Packages {
		if _, ok := graph[Module+"/"+rel]; !ok {
			t.Errorf("layers.Packages places %s, which is not a package of the module", rel)
		}
	}
}

// TestK6SideBinaryLinksNoPlotting lists everything the xk6-llmstream binary
// links: plotting is analyze's. (That k6 is never linked, .ci/run checks
// over the whole tree.)
func TestK6SideBinaryLinksNoPlotting(t *testing.T) {
	deps := goList(t, "-deps", "./xk6-llmstream")
	for _, d := range deps {
		if strings.HasPrefix(d, "gonum.org/v1/plot") {
			t.Errorf("the xk6-llmstream binary links %s", d)
		}
	}
	if len(deps) < 50 {
		t.Fatalf("go list -deps found %d packages: the listing is broken", len(deps))
	}
}

// TestCheckReportsForbiddenEdges adds forbidden imports to a clean graph and
// expects each to be reported with its reason.
func TestCheckReportsForbiddenEdges(t *testing.T) {
	m := func(rel string) string { return Module + "/" + rel }
	clean := map[string][]string{
		m("internal/stats"):        {"math"},
		m("internal/rundata"):      {m("internal/stats"), m("internal/k6json"), m("internal/records")},
		m("xk6-llmstream/mockllm"): {m("xk6-llmstream/workload"), m("internal/endpoints")},
		m("analyze/plot"):          {m("internal/stats"), "gonum.org/v1/plot/vg"},
		m("xk6-llmstream/sweep"):   {m("internal/result"), m("xk6-llmstream/runner")},
	}
	if v := Check(clean); len(v) != 0 {
		t.Fatalf("a clean graph reports %v", v)
	}
	for _, c := range []struct {
		from, to, want string
	}{
		{"internal/stats", m("analyze/plot"), "layer core may not import layer analyze"},
		{"internal/rundata", m("internal/result"), "inside layer core, rank 2 may import only lower ranks (this is rank 3)"},
		{"xk6-llmstream/mockllm", m("xk6-llmstream/helper"), "inside layer engine, rank 1 may import only lower ranks (this is rank 1)"},
		{"xk6-llmstream/sweep", "gonum.org/v1/plot/plotter", "only [analyze/plot analyze/figures analyze] may import gonum.org/v1/plot"},
		{"internal/stats", m("analyze"), "nothing imports a binary"},
	} {
		g := map[string][]string{}
		for k, v := range clean {
			g[k] = append([]string(nil), v...)
		}
		g[m(c.from)] = append(g[m(c.from)], c.to)
		got := Check(g)
		if len(got) != 1 || !strings.Contains(got[0].Why, c.want) {
			t.Errorf("adding %s → %s: got %v, want one violation saying %q", c.from, c.to, got, c.want)
		}
	}
	g := map[string][]string{m("newpkg"): {"fmt"}}
	if got := Check(g); len(got) != 1 || !strings.Contains(got[0].Why, "no place") {
		t.Errorf("an unplaced package: got %v", got)
	}
}
