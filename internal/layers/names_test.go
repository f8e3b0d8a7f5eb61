package layers

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// metricsPackage is the one folder whose Go may spell a metric name: the
// constants of internal/metrics are the names' one source.
const metricsPackage = "internal/metrics/"

// metricNameLiterals lists the string literals that start with "llm_" in the
// files outside metricsPackage (comments are not literals).
func metricNameLiterals(fset *token.FileSet, files []sourceFile) []string {
	var out []string
	for _, sf := range files {
		if strings.HasPrefix(sf.Path, metricsPackage) {
			continue
		}
		ast.Inspect(sf.File, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "llm_") {
				out = append(out, fmt.Sprintf("%s: %s", fset.Position(lit.Pos()), lit.Value))
			}
			return true
		})
	}
	return out
}

// TestMetricNamesComeFromMetrics fails on a metric name spelled as a
// literal in non-test Go outside internal/metrics: renaming a metric there
// would silently miss it.
func TestMetricNamesComeFromMetrics(t *testing.T) {
	fset, files := moduleSources(t)
	for _, l := range metricNameLiterals(fset, files) {
		t.Errorf("%s: a metric name literal; use the constant of internal/metrics", l)
	}
}

// TestMetricNameLiteralRuleFails shows the rule failing on an injected
// literal, raw or quoted, and passing on comments and the metrics package.
func TestMetricNameLiteralRuleFails(t *testing.T) {
	fset := token.NewFileSet()
	src := "package p\n\n// f reads \"llm_ttft\".\nfunc f() []string { return []string{\"llm_ttft\", `llm_itl`, \"LLM_MODEL\"} }\n"
	bad := parseSource(t, fset, "analyze/x.go", src)
	got := metricNameLiterals(fset, []sourceFile{bad})
	if len(got) != 2 || !strings.Contains(got[0], `"llm_ttft"`) || !strings.Contains(got[1], "`llm_itl`") {
		t.Errorf("literals = %q, want the two llm_ literals and not the comment", got)
	}
	own := parseSource(t, fset, metricsPackage+"builtin.go", src)
	if got := metricNameLiterals(fset, []sourceFile{own}); len(got) != 0 {
		t.Errorf("the metrics package's own literals were reported: %q", got)
	}
}

// typeDecls lists where the files declare a type of one of the names.
func typeDecls(files []sourceFile, names ...string) map[string][]string {
	out := map[string][]string{}
	for _, sf := range files {
		for _, decl := range sf.File.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				if ts := spec.(*ast.TypeSpec); slices.Contains(names, ts.Name.Name) {
					out[ts.Name.Name] = append(out[ts.Name.Name], sf.Path)
				}
			}
		}
	}
	return out
}

// TestOneSLOType: SLO and Limit (a per-request limit) are declared once, in
// internal/metrics; what means something else has its own name
// (result.SLOChecks, cli.SLOFlag, compare.RegressionLimit,
// sweep.LimitVerdict).
func TestOneSLOType(t *testing.T) {
	_, files := moduleSources(t)
	for name, where := range typeDecls(files, "SLO", "Limit") {
		if len(where) != 1 || !strings.HasPrefix(where[0], metricsPackage) {
			t.Errorf("type %s is declared in %v; want it in %s only", name, where, metricsPackage)
		}
	}
	fset := token.NewFileSet()
	two := []sourceFile{parseSource(t, fset, metricsPackage+"slo.go", "package metrics\ntype SLO struct{}\n"),
		parseSource(t, fset, "internal/result/x.go", "package result\ntype SLO struct{}\n")}
	if got := typeDecls(two, "SLO"); len(got["SLO"]) != 2 {
		t.Errorf("typeDecls found %v, want both SLO types", got)
	}
}
