package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the module's root seen from this package's folder.
const moduleRoot = "../.."

// sourceFile is one parsed non-test Go file of the module.
type sourceFile struct {
	Path string // relative to the module root
	File *ast.File
}

// moduleSources parses every non-test Go file of the module (not of nested
// modules such as conformance/, nor testdata or node_modules), with comments.
func moduleSources(t *testing.T) (*token.FileSet, []sourceFile) {
	t.Helper()
	fset := token.NewFileSet()
	var files []sourceFile
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(path, d.Name())
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		files = append(files, sourceFile{Path: filepath.ToSlash(rel), File: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found only %d Go files under %s: the walk is wrong", len(files), moduleRoot)
	}
	return fset, files
}

// skipDir says whether the walk leaves a folder out: tool folders, test data,
// and nested modules (a folder with its own go.mod).
func skipDir(path, name string) error {
	switch name {
	case "testdata", "node_modules", ".git":
		return filepath.SkipDir
	}
	if path == moduleRoot {
		return nil
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// parseSource parses one file's text for the tests that inject a case.
func parseSource(t *testing.T, fset *token.FileSet, name, src string) sourceFile {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return sourceFile{Path: name, File: f}
}
