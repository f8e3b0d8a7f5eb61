package output

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// table is a titled grid of cells rendered as aligned text or as Markdown.
type table struct {
	title  string
	header []string
	right  []bool // right-align the column (numbers)
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// text renders an aligned table: columns separated by two spaces, numbers
// right-aligned, no trailing blanks; the title and cells each on one line
// (plainText).
func (t *table) text(w *errWriter) {
	if t.title != "" {
		w.printf("%s\n", plainText(t.title))
	}
	rows := make([][]string, len(t.rows))
	for i, r := range t.rows {
		rows[i] = make([]string, len(r))
		for j, c := range r {
			rows[i][j] = plainText(c)
		}
	}
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		w.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	line(t.header)
	for _, r := range rows {
		line(r)
	}
}

// markdown renders a GitHub-flavoured Markdown table; the title and every
// cell are escaped (mdText), so that they render as the text they are.
func (t *table) markdown(w *errWriter) {
	if t.title != "" {
		w.printf("%s\n\n", mdText(t.title))
	}
	esc := mdText
	cells := make([]string, len(t.header))
	for i, h := range t.header {
		cells[i] = esc(h)
	}
	w.printf("| %s |\n", strings.Join(cells, " | "))
	for i := range t.header {
		if t.right[i] {
			cells[i] = "---:"
		} else {
			cells[i] = "---"
		}
	}
	w.printf("|%s|\n", strings.Join(cells, "|"))
	for _, r := range t.rows {
		for i, c := range r {
			cells[i] = esc(c)
		}
		w.printf("| %s |\n", strings.Join(cells, " | "))
	}
}

// errWriter keeps the first write error, so that a writer can print freely and
// check once.
type errWriter struct {
	w   io.Writer
	err error
}

// Write makes errWriter an io.Writer (for a tabwriter): it writes nothing
// after an error.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	var s string
	if len(args) == 0 {
		s = format
	} else {
		s = fmt.Sprintf(format, args...)
	}
	_, e.err = io.WriteString(e.w, s)
}

// Number formats a value for a table: integers as integers, others with two
// decimals (four significant digits below 1), infinities as ∞.
func Number(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) < 1:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// withUnit appends a unit to a formatted number.
func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}
