package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/plot"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// IndexFile is the name of the page in the report's folder.
const IndexFile = "index.html"

//go:embed template.html
var pageTemplate string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":     output.Number,
	"count":   func(n int64) string { return numfmt.Thousands(n) },
	"count64": func(n int) string { return numfmt.Thousands(int64(n)) },
	"add":     func(a, b int) int { return a + b },
	"join":    strings.Join,
	"anchor":  anchor,
	"utc":     utc,
	"span":    span,
	"secs":    func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) },
	"pct":     func(v float64) string { return strconv.FormatFloat(100*v, 'f', -1, 64) + "%" },
	"ci":      ci,
	"svg":     func(f Figure) (template.HTML, error) { return inlineSVG(f) },
	"share":   shareText,
	"effect":  func(v float64) string { return fmt.Sprintf("%+.2f", v) },
}).Parse(pageTemplate))

// Write makes dir (and its parents) if needed and writes dir/index.html and
// each figure's PNG into it, replacing files of the same names. The files
// are written as one batch (internal/atomicfile): a failure leaves none of
// them new or half-written, and removes dir if Write made it.
func Write(dir string, r *Report) (err error) {
	if err := checkFigures(r); err != nil {
		return err
	}
	_, statErr := os.Stat(dir)
	made := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var b atomicfile.Batch
	defer func() {
		if err != nil {
			b.Abort()
			if made {
				os.Remove(dir)
			}
		}
	}()
	for _, nf := range allFigures(r) {
		fig := nf.fig.Fig
		if err := b.Write(filepath.Join(dir, nf.fig.File), 0o644, func(w io.Writer) error { return fig.Encode(w, plot.PNG) }); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := b.Write(filepath.Join(dir, IndexFile), 0o644, func(w io.Writer) error { return Render(w, r) }); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Render writes the page to w.
func Render(w io.Writer, r *Report) error {
	if err := checkFigures(r); err != nil {
		return err
	}
	if r.Title == "" {
		c := *r
		c.Title = "Load test report"
		r = &c
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// checkFigures makes sure every figure is drawn and named as a plain .png
// file in the report's folder, each name once.
func checkFigures(r *Report) error {
	seen := map[string]bool{}
	for _, nf := range allFigures(r) {
		f := nf.fig
		switch {
		case f.Fig == nil:
			return fmt.Errorf("report: figure %q of %s has nothing drawn", f.File, nf.of)
		case f.File != filepath.Base(f.File) || strings.ContainsAny(f.File, `/\`) || !strings.HasSuffix(f.File, ".png"):
			return fmt.Errorf("report: figure file %q of %s: want a plain file name ending in .png", f.File, nf.of)
		case seen[f.File]:
			return fmt.Errorf("report: two figures are named %q", f.File)
		}
		seen[f.File] = true
	}
	return nil
}

// namedFigure is a figure and what it belongs to (a metric, the history).
type namedFigure struct {
	fig Figure
	of  string
}

// FigureCount is the number of figures the report draws.
func (r *Report) FigureCount() int { return len(allFigures(r)) }

// allFigures lists the figures of the metrics, then of the history, then
// of the tail's attribution.
func allFigures(r *Report) []namedFigure {
	var out []namedFigure
	for _, m := range r.Metrics {
		for _, f := range m.Figures {
			out = append(out, namedFigure{f, m.Name})
		}
	}
	if r.History != nil {
		for _, f := range r.History.Figures {
			out = append(out, namedFigure{f, "the history"})
		}
	}
	if r.Tail != nil && r.Tail.Figure != nil {
		out = append(out, namedFigure{*r.Tail.Figure, "the tail's attribution"})
	}
	return out
}

// inlineSVG renders a figure as an inline <svg> element with an accessible
// label.
func inlineSVG(f Figure) (template.HTML, error) {
	b, err := f.Fig.SVG()
	if err != nil {
		return "", err
	}
	label := template.HTMLEscapeString(f.Caption)
	b = bytes.Replace(b, []byte("<svg "), []byte(`<svg role="img" aria-label="`+label+`" `), 1)
	// gonum's SVG is generated here from numbers and escaped labels; it is
	// trusted markup.
	return template.HTML(b), nil
}

// anchor makes an HTML id from a metric name.
func anchor(name string) string {
	var b strings.Builder
	b.WriteString("metric-")
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func utc(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

func span(a, b time.Time) string {
	if a.IsZero() || b.IsZero() {
		return "—"
	}
	return b.Sub(a).Round(time.Millisecond).String()
}

// shareText writes a share as a percentage with one decimal: 96.4%.
func shareText(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func ci(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return output.Number(lo) + " – " + output.Number(hi)
}
