package layers

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
	"testing"
)

// The function-length rule: a function is at most
// maxFuncLines long, counted from its func line to its closing brace, with
// at most maxLongFuncs exceptions, each carrying a one-line
// `// long: <reason>` comment right above its func line.
const (
	maxFuncLines = 80
	maxLongFuncs = 8
	longMark     = "// long:"
)

// longFunc is a function over the limit.
type longFunc struct {
	Where  string // file:line
	Name   string
	Lines  int
	Reason string // the text after "// long:", "" when missing
}

// longFuncs lists the functions (and methods, and function literals' outer
// functions) of the files that run over maxFuncLines.
func longFuncs(fset *token.FileSet, files []sourceFile) []longFunc {
	var out []longFunc
	for _, sf := range files {
		for _, decl := range sf.File.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			n := end.Line - start.Line + 1
			if n <= maxFuncLines {
				continue
			}
			out = append(out, longFunc{
				Where: fmt.Sprintf("%s:%d", sf.Path, start.Line), Name: funcName(fn),
				Lines: n, Reason: longReason(fset, fn),
			})
		}
	}
	return out
}

// funcName is Name or Recv.Name.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// longReason is the reason of a `// long: <reason>` line directly above the
// function's func line (the last line of its doc comment), or "".
func longReason(fset *token.FileSet, fn *ast.FuncDecl) string {
	if fn.Doc == nil || len(fn.Doc.List) == 0 {
		return ""
	}
	last := fn.Doc.List[len(fn.Doc.List)-1]
	if fset.Position(last.End()).Line != fset.Position(fn.Pos()).Line-1 {
		return ""
	}
	text, ok := strings.CutPrefix(last.Text, longMark)
	if !ok {
		return ""
	}
	return strings.TrimSpace(text)
}

// funcLenProblems states what breaks the rule: a long function without a
// reason, or more long functions than allowed.
func funcLenProblems(long []longFunc) []string {
	var problems []string
	for _, f := range long {
		if f.Reason == "" {
			problems = append(problems, fmt.Sprintf("%s %s is %d lines (> %d) with no %q line above it: split it or give the reason",
				f.Where, f.Name, f.Lines, maxFuncLines, longMark+" <reason>"))
		}
	}
	if len(long) > maxLongFuncs {
		problems = append(problems, fmt.Sprintf("%d functions are over %d lines, at most %d may be", len(long), maxFuncLines, maxLongFuncs))
	}
	return problems
}

// TestFunctionLength holds every non-test function of the module to the rule.
func TestFunctionLength(t *testing.T) {
	fset, files := moduleSources(t)
	long := longFuncs(fset, files)
	for _, f := range long {
		t.Logf("%s %s: %d lines; long: %q", f.Where, f.Name, f.Lines, f.Reason)
	}
	for _, p := range funcLenProblems(long) {
		t.Error(p)
	}
}

// TestFunctionLengthRuleFails shows the rule failing on an injected long
// function without a reason, passing with one, and failing on too many.
func TestFunctionLengthRuleFails(t *testing.T) {
	body := strings.Repeat("\t_ = 1\n", maxFuncLines-1)
	fset := token.NewFileSet()
	bare := parseSource(t, fset, "bare.go", "package p\n\n// f does.\nfunc f() {\n"+body+"}\n")
	long := longFuncs(fset, []sourceFile{bare})
	if len(long) != 1 || long[0].Lines != maxFuncLines+1 || long[0].Reason != "" {
		t.Fatalf("longFuncs = %+v, want one function of %d lines without reason", long, maxFuncLines+1)
	}
	if p := funcLenProblems(long); len(p) != 1 || !strings.Contains(p[0], "bare.go:4 f is 81 lines") {
		t.Errorf("problems = %q, want one naming bare.go:4 f", p)
	}
	ok := parseSource(t, fset, "ok.go", "package p\n\n// f does.\n// long: a table\nfunc (r *T) f() {\n"+body+"}\n")
	long = longFuncs(fset, []sourceFile{ok})
	if len(long) != 1 || long[0].Reason != "a table" || long[0].Name != "T.f" {
		t.Fatalf("longFuncs = %+v, want T.f with reason", long)
	}
	if p := funcLenProblems(long); len(p) != 0 {
		t.Errorf("a reasoned long function: problems %q", p)
	}
	far := parseSource(t, fset, "far.go", "package p\n\n// long: a table\n// f does.\nfunc f() {\n"+body+"}\n")
	if long = longFuncs(fset, []sourceFile{far}); long[0].Reason != "" {
		t.Errorf("a long: line not right above the func line counted: %+v", long)
	}
	short := parseSource(t, fset, "short.go", "package p\nfunc f() {\n"+body[:len(body)-len("\t_ = 1\n")]+"}\n")
	if long = longFuncs(fset, []sourceFile{short}); len(long) != 0 {
		t.Errorf("an 80-line function counted as long: %+v", long)
	}
	many := make([]longFunc, maxLongFuncs+1)
	for i := range many {
		many[i] = longFunc{Where: "x.go:1", Name: "f", Lines: 81, Reason: "r"}
	}
	if p := funcLenProblems(many); len(p) != 1 || !strings.Contains(p[0], "at most 8") {
		t.Errorf("too many long functions: problems %q", p)
	}
}
