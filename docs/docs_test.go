// Package docs holds the checks that keep README.md and docs/*.md true: the
// README stays a five-minute read and no page is over 4,000 words, every
// relative link and anchor resolves, what the README's commands write is ignored
// by git, and the reference tables that restate the code match it (the flag
// tables are checked in the two main packages, the mock's settings in mockllm).
package docs

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// maxREADMEWords keeps the README a read of about five minutes (k6's own is ~800 words).
const maxREADMEWords = 1500

func TestREADMEWordCount(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := len(strings.Fields(string(b))) // as wc -w counts
	t.Logf("README.md: %d words (limit %d)", n, maxREADMEWords)
	if n > maxREADMEWords {
		t.Errorf("README.md has %d words, more than %d: move details to a page under docs/ and link it", n, maxREADMEWords)
	}
}

// maxPageWords bounds every page of docs/: a page longer than this is split by
// topic into pages of their own (issue 34).
const maxPageWords = 4000

// TestPageWordCount: no page of docs/ has more than maxPageWords words, as
// wc -w counts them.
func TestPageWordCount(t *testing.T) {
	for _, file := range markdownFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := len(strings.Fields(string(b)))
		if n > maxPageWords {
			t.Errorf("%s has %d words, more than %d: split it by topic into pages of their own and link them", file, n, maxPageWords)
		}
	}
}

// markdownFiles are the pages whose links are checked.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	if len(files) < 10 {
		t.Fatalf("only %d Markdown files found", len(files))
	}
	return files
}

// page is a parsed Markdown file: its links and its headings' anchors.
type page struct {
	links   []link
	anchors map[string]bool
	code    []string // the lines of its fenced code blocks
}

type link struct {
	dest string
	line int
}

func parse(path string) (*page, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	p := &page{anchors: map[string]bool{}}
	for _, m := range htmlAnchor.FindAllSubmatch(src, -1) {
		p.anchors[string(m[1])] = true // <a id="cost"></a>
	}
	seen := map[string]int{}
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			p.links = append(p.links, link{string(n.Destination), lineOf(src, n)})
		case *ast.Image:
			p.links = append(p.links, link{string(n.Destination), lineOf(src, n)})
		case *ast.Heading:
			s := slug(plainText(n, src))
			if k := seen[s]; k > 0 {
				p.anchors[fmt.Sprintf("%s-%d", s, k)] = true
			} else {
				p.anchors[s] = true
			}
			seen[s]++
		case *ast.FencedCodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				p.code = append(p.code, string(seg.Value(src)))
			}
		}
		return ast.WalkContinue, nil
	})
	return p, err
}

// lineOf is the line of the first text inside n (links and images have no
// position of their own in goldmark's tree).
func lineOf(src []byte, n ast.Node) int {
	for c := n.FirstChild(); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return 1 + strings.Count(string(src[:t.Segment.Start]), "\n")
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return 1 + strings.Count(string(src[:p.Lines().At(0).Start]), "\n")
		}
	}
	return 0
}

// plainText is a heading's text as GitHub reads it for the anchor: the text of
// its inline nodes, code spans included.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// slug is GitHub's anchor of a heading: lower case, only letters, digits, spaces,
// hyphens and underscores kept, each space a hyphen.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"The metric contract":                                      "the-metric-contract",
		"`run` and `sweep`":                                        "run-and-sweep",
		"analyze tail: where the tail comes from":                  "analyze-tail-where-the-tail-comes-from",
		"Client health and prompt cache":                           "client-health-and-prompt-cache",
		"1–3. Engine, helper, module: `go test ./e2e -run Ollama`": "13-engine-helper-module-go-test-e2e--run-ollama",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRelativeLinksResolve: every relative link and image in README.md and
// docs/*.md names a file or folder that exists, and its #anchor, when it has one
// and points into Markdown, a heading of that page.
func TestRelativeLinksResolve(t *testing.T) {
	pages := map[string]*page{}
	get := func(path string) (*page, error) {
		if p, ok := pages[path]; ok {
			return p, nil
		}
		p, err := parse(path)
		if err == nil {
			pages[path] = p
		}
		return p, err
	}
	checked := 0
	for _, file := range markdownFiles(t) {
		p, err := get(filepath.Clean(file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range p.links {
			if err := resolve(file, l.dest, get); err != nil {
				t.Errorf("%s:%d: link %q: %v", file, l.line, l.dest, err)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d links checked: the parser finds too few", checked)
	}
}

// scriptLink is a link to a script of scripts/ in a table cell.
var scriptLink = regexp.MustCompile(`\]\(scripts/([^/)]+\.js)\)`)

// htmlAnchor is an explicit anchor in a page's HTML: <a id="x"> or <a name="x">.
var htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func resolve(from, dest string, get func(string) (*page, error)) error {
	if dest == "" {
		return errors.New("empty link")
	}
	if scheme.MatchString(dest) {
		return nil // https:, mailto: …: not checked (no network in tests)
	}
	target, anchor, _ := strings.Cut(dest, "#")
	target, err := url.PathUnescape(target)
	if err != nil {
		return err
	}
	path := filepath.Clean(from)
	if target != "" {
		if strings.HasPrefix(target, "/") {
			return errors.New("an absolute path does not resolve on GitHub or in a checkout; use a relative one")
		}
		path = filepath.Join(filepath.Dir(from), filepath.FromSlash(target))
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no such file or folder %s", path)
		}
	}
	if anchor == "" || !strings.HasSuffix(path, ".md") {
		return nil
	}
	p, err := get(path)
	if err != nil {
		return err
	}
	if !p.anchors[anchor] {
		return fmt.Errorf("%s has no heading with anchor #%s", path, anchor)
	}
	return nil
}

// outputArg finds what a command in the README writes: -o FILE, --out-dir DIR,
// --records FILE, --out json=FILE.
var outputArg = regexp.MustCompile(`(?:\s-o|--out-dir|--records)\s+([^\s'"]+)|--out\s+json=([^\s'"]+)`)

// TestREADMEOutputsIgnored: git ignores every file the README's commands write,
// so following the README leaves `git status` clean.
func TestREADMEOutputsIgnored(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH: cannot ask git check-ignore")
	}
	if out, err := exec.Command(gitPath, "-C", "..", "rev-parse", "--is-inside-work-tree").CombinedOutput(); err != nil {
		t.Skipf("not a git work tree (%v: %s): nothing to ignore", err, strings.TrimSpace(string(out)))
	}
	p, err := parse("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]bool{}
	for _, line := range p.code {
		for _, m := range outputArg.FindAllStringSubmatch(line, -1) {
			outputs[m[1]+m[2]] = true
		}
	}
	if len(outputs) < 3 {
		t.Fatalf("found only %v as outputs of the README's commands", outputs)
	}
	var names []string
	for o := range outputs {
		names = append(names, o)
	}
	sort.Strings(names)
	for _, o := range names {
		// --no-index: judged by the ignore rules alone, tracked or not.
		cmd := exec.Command(gitPath, "-C", "..", "check-ignore", "-q", "--no-index", o)
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() == 1:
			t.Errorf("README.md's commands write %s, which .gitignore does not cover", o)
		default:
			t.Errorf("git check-ignore %s: %v", o, err)
		}
	}
}
