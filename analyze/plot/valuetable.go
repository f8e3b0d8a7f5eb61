package plot

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// valueTable is the legend of an ECDF of several curves: one row per curve
// (its line, its name and sample count, the values of its marks), one column
// per mark, under a header naming the marks. It takes the place of labels
// beside the dots, which collide when the curves' percentiles are close.
type valueTable struct {
	header []string // the marks' names, e.g. P50, P90, P99
	rows   []tableRow
}

// tableRow is one curve of a valueTable.
type tableRow struct {
	name   string
	color  color.RGBA
	dashes []vg.Length
	cells  []string // one per header column; "" when the curve lacks it
}

// Table layout.
var (
	tableColGap   = vg.Points(10)
	tableNameGap  = vg.Points(8) // more between the names and the values
	tableRowGap   = vg.Points(2)
	tablePad      = vg.Points(3)
	tableBoxColor = color.RGBA{242, 242, 242, 255} // light grey
)

// column returns the index of a mark's column, adding it when new.
func (t *valueTable) column(name string) int {
	for i, h := range t.header {
		if h == name {
			return i
		}
	}
	t.header = append(t.header, name)
	return len(t.header) - 1
}

// add appends a curve's row with its marks' values.
func (t *valueTable) add(name string, col color.RGBA, dashes []vg.Length, ls []markLabel) {
	row := tableRow{name: name, color: col, dashes: dashes}
	for _, l := range ls {
		i := t.column(l.Name)
		for len(row.cells) <= i {
			row.cells = append(row.cells, "")
		}
		row.cells[i] = l.value
	}
	t.rows = append(t.rows, row)
}

// metrics are the table's text style, row height and column widths.
func (t *valueTable) metrics(plt *plot.Plot) (sty text.Style, rowH, nameW vg.Length, colW []vg.Length) {
	sty = plt.Legend.TextStyle
	sty.Handler = plt.TextHandler
	sty.YAlign = draw.YTop
	rowH = sty.Height("P0") + tableRowGap
	colW = make([]vg.Length, len(t.header))
	for i, h := range t.header {
		colW[i] = sty.Width(h)
	}
	for _, r := range t.rows {
		nameW = max(nameW, sty.Width(r.name))
		for i, s := range r.cells {
			colW[i] = max(colW[i], sty.Width(s))
		}
	}
	return sty, rowH, nameW, colW
}

// size is the table's width and height, its box included.
func (t *valueTable) size(plt *plot.Plot) vg.Point {
	_, rowH, nameW, colW := t.metrics(plt)
	width := plt.Legend.ThumbnailWidth + tableColGap/2 + nameW + tableNameGap
	for _, w := range colW {
		width += tableColGap + w
	}
	return vg.Point{X: width + 2*tablePad, Y: vg.Length(len(t.rows)+1)*rowH + 2*tablePad}
}

// draw draws the table in box (of its size).
func (t *valueTable) draw(c draw.Canvas, plt *plot.Plot, box vg.Rectangle) {
	sty, rowH, nameW, colW := t.metrics(plt)
	thumb := plt.Legend.ThumbnailWidth
	c.FillPolygon(tableBoxColor, []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}})
	left, top := box.Min.X+tablePad, box.Max.Y-tablePad
	// cellsAt writes a row's cells right-aligned in their columns.
	cellsAt := func(y vg.Length, cells []string, col color.Color) {
		x := left + thumb + tableColGap/2 + nameW + tableNameGap
		s := sty
		s.XAlign, s.Color = draw.XRight, col
		for i, w := range colW {
			x += tableColGap + w
			if i < len(cells) && cells[i] != "" {
				c.FillText(s, vg.Point{X: x, Y: y}, cells[i])
			}
		}
	}
	cellsAt(top, t.header, color.Black)
	for i, r := range t.rows {
		y := top - vg.Length(i+1)*rowH
		mid := y - rowH/2
		c.StrokeLine2(draw.LineStyle{Color: r.color, Width: vg.Points(1.5), Dashes: r.dashes}, left, mid, left+thumb, mid)
		s := sty
		s.XAlign, s.Color = draw.XLeft, color.Black
		c.FillText(s, vg.Point{X: left + thumb + tableColGap/2, Y: y}, r.name)
		cellsAt(y, r.cells, darken(r.color))
	}
}
