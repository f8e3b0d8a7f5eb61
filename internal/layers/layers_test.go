package layers

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// sides and ranks.
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
	// Every ranked package exists, so the table does not rot.
	for rel := range Ranks {
		if _, ok := graph[Module+"/"+rel]; !ok {
			t.Errorf("layers.Ranks ranks %s, which is not a package of the module", rel)
		}
	}
}

// binaryDeps lists the module packages a binary links, relative to Module, and
// every outside package in full.
func binaryDeps(t *testing.T, pkg string) []string {
	t.Helper()
	deps := goList(t, "-deps", pkg)
	if len(deps) < 50 {
		t.Fatalf("go list -deps %s found %d packages: the listing is broken", pkg, len(deps))
	}
	for i, d := range deps {
		if rel, ok := relative(d); ok {
			deps[i] = rel
		}
	}
	return deps
}

// linkedAcross returns what of deps a binary of side own must not link: the
// other side's packages, test kits, and plotting for the k6 side.
func linkedAcross(own Side, deps []string) []string {
	var bad []string
	for _, d := range deps {
		side, ours := SideOf(d)
		switch {
		case ours && side != own && side != Core:
			bad = append(bad, d)
		case !ours && own == K6 && strings.HasPrefix(d, "gonum.org/v1/plot"):
			bad = append(bad, d)
		}
	}
	return bad
}

// TestK6SideBinaryLinksNoAnalyze lists everything the xk6-llmstream binary
// links: no analyze package, no test kit, no plotting. (That k6 is never
// linked, .ci/run checks over the whole tree.)
func TestK6SideBinaryLinksNoAnalyze(t *testing.T) {
	for _, d := range linkedAcross(K6, binaryDeps(t, "./xk6-llmstream")) {
		t.Errorf("the xk6-llmstream binary links %s", d)
	}
}

// TestAnalyzeBinaryLinksNoEngine: the analyze binary reads what the engine
// wrote, through the core; it links no package of the k6 side.
func TestAnalyzeBinaryLinksNoEngine(t *testing.T) {
	deps := binaryDeps(t, "./analyze")
	if !slices.Contains(deps, "internal/rundata") {
		t.Fatalf("the analyze binary's deps lack internal/rundata: the listing is broken: %v", deps)
	}
	for _, d := range linkedAcross(Analyze, deps) {
		t.Errorf("the analyze binary links %s", d)
	}
}

// TestLinkedAcrossCatchesAnInjectedDep: the binary rules fail on an injected
// package of the other side.
func TestLinkedAcrossCatchesAnInjectedDep(t *testing.T) {
	for _, c := range []struct {
		own  Side
		deps []string
		want string
	}{
		{Analyze, []string{"internal/stats", "analyze/plot", "xk6-llmstream/runner"}, "xk6-llmstream/runner"},
		{Analyze, []string{"internal/stats", "internal/testkit/k6sim"}, "internal/testkit/k6sim"},
		{K6, []string{"internal/stats", "xk6-llmstream/helper", "analyze/output"}, "analyze/output"},
		{K6, []string{"internal/stats", "gonum.org/v1/plot/vg"}, "gonum.org/v1/plot/vg"},
	} {
		if got := linkedAcross(c.own, c.deps); len(got) != 1 || got[0] != c.want {
			t.Errorf("side %s linking %v: got %v, want [%s]", c.own, c.deps, got, c.want)
		}
	}
}

// TestCheckReportsForbiddenEdges adds forbidden imports to a clean graph and
// expects each to be reported with its reason: one case per rule.
func TestCheckReportsForbiddenEdges(t *testing.T) {
	m := func(rel string) string { return Module + "/" + rel }
	clean := map[string][]string{
		m("internal/stats"):         {"math"},
		m("internal/rundata"):       {m("internal/stats"), m("internal/k6json"), m("internal/records")},
		m("xk6-llmstream/mockllm"):  {m("xk6-llmstream/workload"), m("internal/endpoints")},
		m("analyze/plot"):           {m("internal/stats"), "gonum.org/v1/plot/vg"},
		m("xk6-llmstream/sweep"):    {m("internal/result"), m("xk6-llmstream/runner")},
		m("internal/testkit/k6sim"): {m("internal/thresholds"), m("xk6-llmstream/helper")},
		m("e2e"):                    {m("internal/testkit/k6sim"), m("xk6-llmstream/mockllm")},
		m("analyze/figures"):        {m("analyze/plot"), m("internal/rundata")},
	}
	if v := Check(clean); len(v) != 0 {
		t.Fatalf("a clean graph reports %v", v)
	}
	for _, c := range []struct {
		from, to, want string
	}{
		{"analyze/figures", m("xk6-llmstream/sweep"), "side analyze may not import side xk6-llmstream"},
		{"xk6-llmstream/sweep", m("analyze/figures"), "side xk6-llmstream may not import side analyze"},
		{"internal/stats", m("analyze/plot"), "side core may not import side analyze"},
		{"internal/rundata", m("xk6-llmstream/stream"), "side core may not import side xk6-llmstream"},
		{"xk6-llmstream/helper", m("internal/testkit/k6sim"), "a test kit is imported by tests only"},
		{"internal/result", m("internal/testkit/recordstest"), "a test kit is imported by tests only"},
		{"internal/rundata", m("internal/result"), "inside side core, rank 3 may import only lower ranks (this is rank 4)"},
		{"xk6-llmstream/mockllm", m("xk6-llmstream/helper"), "inside side xk6-llmstream, rank 1 may import only lower ranks (this is rank 1)"},
		{"xk6-llmstream/sweep", "gonum.org/v1/plot/plotter", "only [analyze/plot analyze/figures analyze] may import gonum.org/v1/plot"},
		{"internal/stats", m("analyze"), "nothing imports a binary"},
		{"internal/testkit/k6sim", m("e2e"), "nothing imports a binary or a test-only folder"},
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
	for _, c := range []struct{ pkg, want string }{
		{"newpkg", "under no side's prefix"},
		{"internal/newpkg", "no rank"},
		{"xk6-llmstream/newpkg", "no rank"},
	} {
		if got := Check(map[string][]string{m(c.pkg): {"fmt"}}); len(got) != 1 || !strings.Contains(got[0].Why, c.want) {
			t.Errorf("an unplaced package %s: got %v, want %q", c.pkg, got, c.want)
		}
	}
}
