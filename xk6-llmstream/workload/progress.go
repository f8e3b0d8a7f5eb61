package workload

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress draws a one-line progress bar on a terminal: "\r[####....] 412/1000
// requests". With Total 0 it shows the count alone. It redraws at most every
// Every, and Done ends the line. The zero Writer draws nothing.
type Progress struct {
	W     io.Writer
	Total int
	Label string
	Every time.Duration
	n     int
	last  time.Time
}

// DefaultProgressEvery is how often a Progress redraws unless told.
const DefaultProgressEvery = 100 * time.Millisecond

// Add counts n more done.
func (p *Progress) Add(n int) {
	if p == nil || p.W == nil {
		return
	}
	p.n += n
	every := p.Every
	if every == 0 {
		every = DefaultProgressEvery
	}
	if now := time.Now(); now.Sub(p.last) >= every {
		p.last = now
		p.draw()
	}
}

// Done draws the final state and ends the line.
func (p *Progress) Done() {
	if p == nil || p.W == nil {
		return
	}
	p.draw()
	fmt.Fprintln(p.W)
}

func (p *Progress) draw() {
	const width = 30
	if p.Total <= 0 {
		fmt.Fprintf(p.W, "\r%d %s", p.n, p.Label)
		return
	}
	filled := min(width, width*p.n/p.Total)
	fmt.Fprintf(p.W, "\r[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.n, p.Total, p.Label)
}
