package figures

import (
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

func TestWindow(t *testing.T) {
	t.Parallel()
	const def = 10 * time.Second
	for _, tc := range []struct{ span, want time.Duration }{
		{0, def},
		{11 * time.Second, time.Second},
		{30 * time.Second, 2 * time.Second},
		{59 * time.Second, 5 * time.Second},
		{60 * time.Second, def},
		{time.Hour, def},
		{150 * time.Millisecond, 10 * time.Millisecond},
		{5 * time.Millisecond, time.Millisecond},
	} {
		got := Window(tc.span, def)
		if got != tc.want {
			t.Errorf("Window(%s, %s) = %s, want %s", tc.span, def, got, tc.want)
		}
		if tc.span > 10*time.Millisecond && tc.span < MinWindows*def && tc.span/got < 10 {
			t.Errorf("Window(%s) = %s gives fewer than 10 windows", tc.span, got)
		}
	}
}

// TestTailStages: the stage profile's bars are named after their groups,
// with their sizes, and every stage is in the legend.
func TestTailStages(t *testing.T) {
	t.Parallel()
	var reqs []tail.Request
	for _, r := range recordstest.SlowInstance(2000) {
		if q, ok := tail.FromRecord(&r); ok {
			reqs = append(reqs, q)
		}
	}
	o := tail.DefaultOptions()
	o.Tail = 99.5
	res, err := tail.Analyze(reqs, o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := TailStages(res)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(svg))
	wants := []string{
		fmt.Sprintf(">median requests (p45–p55), n=%d<", res.Profile.Median.Requests),
		fmt.Sprintf(">tail requests (> p99.5), n=%d<", res.TailCount),
		">Where the TTFT tail comes from: mean time per stage<",
	}
	for _, n := range tail.StageNames {
		wants = append(wants, ">"+n+"<")
	}
	for _, want := range wants {
		if !strings.Contains(page, want) {
			t.Errorf("the figure lacks %q", want)
		}
	}
	if TailStagesFile != "llm_ttft-stages.png" {
		t.Errorf("TailStagesFile %q", TailStagesFile)
	}
}
