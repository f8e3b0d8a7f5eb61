// Package doctable reads the Markdown tables of the project's docs, so that a
// test can compare a reference table (flags, profile keys, metrics, exit codes,
// subcommands, scripts) with the code's own declarations and fail when a row is
// missing or extra. It is a test kit: only tests import it.
package doctable

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Table is one Markdown table: its header cells and its rows.
type Table struct {
	Header []string
	Rows   []Row
}

// Row is one table row and the line of the page it is on.
type Row struct {
	Line  int
	Cells []string
}

// Column is the index of the header cell named name (case-insensitive), or -1.
func (t Table) Column(name string) int {
	for i, h := range t.Header {
		if strings.EqualFold(strings.TrimSpace(h), name) {
			return i
		}
	}
	return -1
}

// Tables returns the tables of the section of the page at path under the
// heading whose GitHub anchor is anchor (up to the next heading of the same or
// a higher level; "" is the whole page). It fails when the page or the heading
// does not exist.
func Tables(path, anchor string) ([]Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	from, to, err := section(lines, anchor)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Table
	var cur *Table
	for i := from; i < to; i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			cur = nil
			continue
		}
		cells := Cells(l)
		switch {
		case cur == nil:
			out = append(out, Table{Header: cells})
			cur = &out[len(out)-1]
		case len(cur.Rows) == 0 && isRule(cells):
		default:
			cur.Rows = append(cur.Rows, Row{Line: i + 1, Cells: cells})
		}
	}
	return out, nil
}

// TableWith is the first table of the section whose first header cell is
// first (case-insensitive).
func TableWith(path, anchor, first string) (Table, error) {
	ts, err := Tables(path, anchor)
	if err != nil {
		return Table{}, err
	}
	for _, t := range ts {
		if len(t.Header) > 0 && strings.EqualFold(strings.TrimSpace(t.Header[0]), first) {
			return t, nil
		}
	}
	return Table{}, fmt.Errorf("%s#%s has no table whose first column is %q", path, anchor, first)
}

var heading = regexp.MustCompile(`^(#{1,6}) (.*)`)

// section is the line range [from, to) under the heading with anchor.
func section(lines []string, anchor string) (int, int, error) {
	if anchor == "" {
		return 0, len(lines), nil
	}
	from, level, fence := -1, 0, false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		m := heading.FindStringSubmatch(l)
		if fence || m == nil {
			continue
		}
		if from >= 0 && len(m[1]) <= level {
			return from, i, nil
		}
		if from < 0 && Slug(m[2]) == anchor {
			from, level = i+1, len(m[1])
		}
	}
	if from < 0 {
		return 0, 0, fmt.Errorf("no heading with anchor #%s", anchor)
	}
	return from, len(lines), nil
}

var link = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// Slug is GitHub's anchor of a heading's Markdown text.
func Slug(s string) string {
	s = link.ReplaceAllString(s, "$1")
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

// Cells splits a table line into its cells: "|" inside a code span or escaped
// as "\|" does not split.
func Cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var b strings.Builder
	code := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			code = !code
			b.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" {
			return false
		}
	}
	return true
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// Code returns the code spans of a cell, in order.
func Code(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// Flags returns the flag names (without dashes) a cell's code spans begin
// with: "`--from D`, `--to D`" → from, to; "`-o FILE`" → o. A code span that
// does not begin with a dash names no flag.
func Flags(cell string) []string {
	var out []string
	for _, c := range Code(cell) {
		if !strings.HasPrefix(c, "-") {
			continue
		}
		name := strings.TrimLeft(c, "-")
		name, _, _ = strings.Cut(name, " ")
		name, _, _ = strings.Cut(name, "=")
		out = append(out, name)
	}
	return out
}

// Diff compares what the docs list with what the code declares: the names in
// the code the docs lack, and the names in the docs the code lacks.
func Diff(docs, code []string) (missing, extra []string) {
	in := func(s []string, x string) bool {
		for _, y := range s {
			if y == x {
				return true
			}
		}
		return false
	}
	for _, c := range code {
		if !in(docs, c) && !in(missing, c) {
			missing = append(missing, c)
		}
	}
	for _, d := range docs {
		if !in(code, d) && !in(extra, d) {
			extra = append(extra, d)
		}
	}
	return missing, extra
}

// Section names a part of a docs page: the page's path and a heading's anchor.
type Section struct{ Page, Anchor string }

// FlagsOf returns the flags the docs give subcommand cmd: the flags of every
// row of the tables whose first column is "flag" in the sections. A table with
// a "commands" column is shared by several subcommands: only its rows that name
// cmd there in a code span count.
func FlagsOf(sections []Section, cmd string) ([]string, error) {
	var out []string
	for _, s := range sections {
		ts, err := Tables(s.Page, s.Anchor)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if len(t.Header) == 0 || !strings.EqualFold(t.Header[0], "flag") {
				continue
			}
			cc := t.Column("commands")
			for _, r := range t.Rows {
				if cc >= 0 && (cc >= len(r.Cells) || !slicesContains(Code(r.Cells[cc]), cmd)) {
					continue
				}
				out = append(out, Flags(r.Cells[0])...)
			}
		}
	}
	return out, nil
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

var helpFlag = regexp.MustCompile(`^  --?([A-Za-z0-9][A-Za-z0-9-]*)`)

// HelpFlags returns the flags a command's -h output lists after its "Flags"
// line: Go's flag.PrintDefaults ("  -name type") or a hand-written list
// ("  --name VALUE  what").
func HelpFlags(help string) []string {
	var out []string
	on := false
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(strings.ToLower(l), "flags") {
			on = true
			continue
		}
		if m := helpFlag.FindStringSubmatch(l); on && m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// Duplicates returns the names listed more than once.
func Duplicates(names []string) []string {
	seen := map[string]int{}
	var out []string
	for _, n := range names {
		if seen[n]++; seen[n] == 2 {
			out = append(out, n)
		}
	}
	return out
}

// ExitCodes returns the integer constants named exit… declared in the Go
// file at path (a main package's exit codes), by value.
func ExitCodes(path string) (map[int]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "exit") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					return nil, fmt.Errorf("%s: %s is not an integer literal", path, n.Name)
				}
				v, err := strconv.Atoi(lit.Value)
				if err != nil {
					return nil, err
				}
				out[v] = n.Name
			}
		}
	}
	return out, nil
}

// ExitCodeRows returns the codes of the rows of the exit-code table (first
// column "code") in the section whose "from" column is from.
func ExitCodeRows(page, anchor, from string) ([]string, error) {
	t, err := TableWith(page, anchor, "code")
	if err != nil {
		return nil, err
	}
	fc := t.Column("from")
	if fc < 0 {
		return nil, fmt.Errorf("%s#%s: the exit-code table has no from column", page, anchor)
	}
	var out []string
	for _, r := range t.Rows {
		if fc < len(r.Cells) && r.Cells[fc] == from {
			out = append(out, r.Cells[0])
		}
	}
	return out, nil
}

// Subcommands returns the subcommands of binary that the command table
// (first column "command") of the section names: each code span of a first
// cell that begins with binary, its next word split at "|"
// ("`analyze plot|compare FILE…`" → plot, compare).
func Subcommands(page, anchor, binary string) ([]string, error) {
	t, err := TableWith(page, anchor, "command")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range t.Rows {
		for _, c := range Code(r.Cells[0]) {
			f := strings.Fields(c)
			if len(f) < 2 || f[0] != binary {
				continue
			}
			out = append(out, strings.Split(f[1], "|")...)
		}
	}
	return out, nil
}
