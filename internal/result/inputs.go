package result

import (
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Inputs describes each input a reader read.
func Inputs(r *rundata.Reader) []Input {
	ins := r.Inputs()
	out := make([]Input, len(r.Files()))
	for i, f := range r.Files() {
		in := Input{Label: ins[i].Label, Path: ins[i].Path, Lines: f.Lines, Points: f.Points,
			Kept: f.Kept, Skipped: f.Skipped, SkippedLines: f.SkippedLines, Damage: f.Damage}
		if !f.Start.IsZero() {
			in.Start = f.Start.Format(time.RFC3339Nano)
		}
		out[i] = in
	}
	return out
}

// Merged describes a reader's inputs as one, labelled label: the paths joined
// with ", ", the counts summed, the earliest start, and the damage of each.
func Merged(r *rundata.Reader, label string) Input {
	files := Inputs(r)
	in := Input{Label: label}
	var paths, damage []string
	for _, f := range files {
		paths = append(paths, f.Path)
		in.Lines += f.Lines
		in.Points += f.Points
		in.Kept += f.Kept
		in.Skipped += f.Skipped
		if f.Damage != "" {
			damage = append(damage, f.Path+": "+f.Damage)
		}
	}
	if len(files) == 1 {
		in.SkippedLines = files[0].SkippedLines
		in.Damage = files[0].Damage
	} else {
		in.Damage = strings.Join(damage, "; ")
	}
	in.Path = strings.Join(paths, ", ")
	if start := r.Start(); !start.IsZero() {
		in.Start = start.Format(time.RFC3339Nano)
	}
	return in
}

// SelectionOf is a selection in the results' schema.
func SelectionOf(s rundata.Selection) Selection {
	sel := Selection{Metrics: s.Metrics, Where: []string{}, By: s.By}
	if sel.Metrics == nil {
		sel.Metrics = []string{}
	}
	if sel.By == nil {
		sel.By = []string{}
	}
	for _, w := range s.Where {
		sel.Where = append(sel.Where, w.String())
	}
	if s.HasFrom {
		sel.From = s.From.String()
	}
	if s.HasTo {
		sel.To = s.To.String()
	}
	return sel
}
