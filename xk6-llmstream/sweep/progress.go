package sweep

import (
	"fmt"
	"io"
	"time"
)

// progress writes a line before and after each level: which level, the time
// so far, and an estimate of the time left from the mean level so far.
type progress struct {
	w     io.Writer
	start time.Time
	guess time.Duration // a level's expected wall time before one has run
	spent time.Duration // wall time of the levels run
	n     int
}

func (p *progress) before(run Run, m Mode, left int) {
	if p.w == nil {
		return
	}
	per := p.guess
	if p.n > 0 {
		per = p.spent / time.Duration(p.n)
	}
	eta := "unknown"
	if per > 0 {
		eta = "about " + (time.Duration(left) * per).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "sweep: level %d of about %d: %s=%s (%s); elapsed %s, %s left; k6's log: %s\n",
		run.Index, run.Index-1+max(left, 1), m.Env(), FormatLevel(run.Offered), m.Unit(),
		time.Since(p.start).Round(time.Second), eta, run.Log)
}

func (p *progress) after(lv Level, run Run, m Mode) {
	p.n++
	p.spent += time.Duration(lv.ElapsedS * float64(time.Second))
	if p.w == nil {
		return
	}
	what := fmt.Sprintf("achieved %s req/s, TTFT p99 %s ms", fmtPtr(lv.AchievedRPS), fmtQuantile(lv.dist(MetricTTFT), "p(99)"))
	if lv.K6ExitCode != 0 && lv.K6ExitCode != ExitThresholdsFailed {
		what = fmt.Sprintf("k6 exited with code %d", lv.K6ExitCode)
	}
	fmt.Fprintf(p.w, "sweep: level %d: %s %s: %s: %s\n", run.Index, FormatLevel(lv.Offered), m.Unit(), what, lv.Verdict)
}
