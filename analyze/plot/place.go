package plot

import (
	"math"

	"gonum.org/v1/plot/vg"
)

// segment is a straight piece of a drawn line, in canvas coordinates.
type segment struct{ a, b vg.Point }

// obstacles are the drawn data a label must not cover: line segments and
// dots (a dot is a segment of length 0 grown by its radius), bucketed by
// columns of the canvas so that a box is tested against the segments near
// it only.
type obstacles struct {
	segs    []segment
	grow    []vg.Length // per segment: half its line width or the dot's radius
	x0, col vg.Length
	cols    [][]int
}

// obstacleColumns is the number of columns the canvas is cut into.
const obstacleColumns = 64

// add adds a segment drawn with the given half width.
func (o *obstacles) add(a, b vg.Point, grow vg.Length) {
	o.segs = append(o.segs, segment{a, b})
	o.grow = append(o.grow, grow)
	o.cols = nil
}

// polyline adds the segments of a straight line through pts.
func (o *obstacles) polyline(pts []vg.Point, grow vg.Length) {
	for i := 1; i < len(pts); i++ {
		o.add(pts[i-1], pts[i], grow)
	}
	if len(pts) == 1 {
		o.add(pts[0], pts[0], grow)
	}
}

// postStep adds the segments of a post-step line through pts: horizontal
// to the next point's x, then vertical to its y.
func (o *obstacles) postStep(pts []vg.Point, grow vg.Length) {
	for i := 1; i < len(pts); i++ {
		corner := vg.Point{X: pts[i].X, Y: pts[i-1].Y}
		if corner != pts[i-1] {
			o.add(pts[i-1], corner, grow)
		}
		if corner != pts[i] {
			o.add(corner, pts[i], grow)
		}
	}
	if len(pts) == 1 {
		o.add(pts[0], pts[0], grow)
	}
}

// index buckets the segments by column.
func (o *obstacles) index() {
	if o.cols != nil || len(o.segs) == 0 {
		return
	}
	lo, hi := vg.Length(math.Inf(1)), vg.Length(math.Inf(-1))
	for i, s := range o.segs {
		lo = min(lo, s.a.X-o.grow[i], s.b.X-o.grow[i])
		hi = max(hi, s.a.X+o.grow[i], s.b.X+o.grow[i])
	}
	o.x0, o.col = lo, max((hi-lo)/obstacleColumns, 1e-6)
	o.cols = make([][]int, obstacleColumns+1)
	for i, s := range o.segs {
		a, b := o.column(min(s.a.X, s.b.X)-o.grow[i]), o.column(max(s.a.X, s.b.X)+o.grow[i])
		for c := a; c <= b; c++ {
			o.cols[c] = append(o.cols[c], i)
		}
	}
}

func (o *obstacles) column(x vg.Length) int {
	return min(obstacleColumns, max(0, int((x-o.x0)/o.col)))
}

// hits counts the segments that cross or touch r (1 at most unless all).
func (o *obstacles) hits(r vg.Rectangle, all bool) int {
	if o == nil || len(o.segs) == 0 {
		return 0
	}
	o.index()
	n := 0
	var seen map[int]bool
	if all {
		seen = map[int]bool{}
	}
	for c := o.column(r.Min.X); c <= o.column(r.Max.X); c++ {
		for _, i := range o.cols[c] {
			if all && seen[i] {
				continue
			}
			if segmentHitsRect(o.segs[i], grow(r, o.grow[i])) {
				if !all {
					return 1
				}
				seen[i] = true
				n++
			}
		}
	}
	return n
}

// grow returns r grown by d on every side.
func grow(r vg.Rectangle, d vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: r.Min.X - d, Y: r.Min.Y - d}, Max: vg.Point{X: r.Max.X + d, Y: r.Max.Y + d}}
}

// segmentHitsRect reports whether the segment s meets the rectangle r
// (Liang–Barsky clipping of s against r).
func segmentHitsRect(s segment, r vg.Rectangle) bool {
	x0, y0 := float64(s.a.X), float64(s.a.Y)
	dx, dy := float64(s.b.X)-x0, float64(s.b.Y)-y0
	t0, t1 := 0.0, 1.0
	clip := func(p, q float64) bool {
		if p == 0 {
			return q >= 0
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return false
			}
			t1 = min(t1, t)
		}
		return true
	}
	return clip(-dx, x0-float64(r.Min.X)) && clip(dx, float64(r.Max.X)-x0) &&
		clip(-dy, y0-float64(r.Min.Y)) && clip(dy, float64(r.Max.Y)-y0) && t0 <= t1
}

// placer finds places for labels inside bounds that cover no obstacle and
// no box already taken.
type placer struct {
	bounds vg.Rectangle
	obs    *obstacles
	taken  []vg.Rectangle
}

// free reports whether r, grown by labelPad, lies inside bounds and clear
// of the obstacles and of the boxes taken.
func (pl *placer) free(r vg.Rectangle) bool {
	return inside(r, pl.bounds, labelPad) && !overlapsAny(grow(r, 2*labelPad), pl.taken) && pl.obs.hits(grow(r, labelPad), false) == 0
}

// place takes the first free of the candidates; else the free place on a
// grid over bounds nearest to near; else, of the candidates moved inside
// bounds, the one over the fewest obstacles. The place is taken.
func (pl *placer) place(candidates []vg.Rectangle, near vg.Point) vg.Rectangle {
	r := pl.find(candidates, near)
	pl.taken = append(pl.taken, r)
	return r
}

func (pl *placer) find(candidates []vg.Rectangle, near vg.Point) vg.Rectangle {
	for _, r := range candidates {
		if pl.free(r) {
			return r
		}
	}
	w, h := candidates[0].Size().X, candidates[0].Size().Y
	best, bestD, found := vg.Rectangle{}, vg.Length(0), false
	for top := pl.bounds.Max.Y - labelPad; top-h >= pl.bounds.Min.Y+labelPad; top -= max(h/2, vg.Points(2)) {
		for left := pl.bounds.Min.X + labelPad; left+w <= pl.bounds.Max.X-labelPad; left += max(w/4, vg.Points(2)) {
			r := vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}}
			dx, dy := left+w/2-near.X, top-h/2-near.Y
			if d := dx*dx + dy*dy; (!found || d < bestD) && pl.free(r) {
				best, bestD, found = r, d, true
			}
		}
	}
	if found {
		return best
	}
	// No free place: the place clear of the other labels over the fewest
	// obstacles, nearest first.
	best, fewest := clampRect(candidates[0], pl.bounds, labelPad), -1
	consider := func(r vg.Rectangle) {
		if !inside(r, pl.bounds, labelPad) || overlapsAny(grow(r, 2*labelPad), pl.taken) {
			return
		}
		if n := pl.obs.hits(grow(r, labelPad), true); fewest < 0 || n < fewest {
			best, fewest = r, n
		}
	}
	for _, r := range candidates {
		consider(r)
	}
	for top := pl.bounds.Max.Y - labelPad; top-h >= pl.bounds.Min.Y+labelPad; top -= max(h/2, vg.Points(2)) {
		for left := pl.bounds.Min.X + labelPad; left+w <= pl.bounds.Max.X-labelPad; left += max(w/4, vg.Points(2)) {
			consider(vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}})
		}
	}
	return best
}
