//go:build linux

package headroom

import (
	"strings"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	const stat = "cpu  100 5 50 800 45 0 10 0 7 0\ncpu0 50 2 25 400 20 0 5 0 3 0\nintr 1 2 3\n"
	got, err := parseProcStat(strings.NewReader(stat))
	if err != nil {
		t.Fatal(err)
	}
	// user..steal (8 fields); guest (7) is already in user; idle+iowait.
	if got.Total != 100+5+50+800+45+0+10+0 || got.Idle != 800+45 {
		t.Fatalf("got %+v", got)
	}
	later := CPUTimes{Idle: got.Idle + 30, Total: got.Total + 120}
	if v := later.IdleSince(got); v == nil || *v != 0.25 {
		t.Errorf("IdleSince = %v, want 0.25", v)
	}
	if v := got.IdleSince(got); v != nil {
		t.Errorf("no time passed: IdleSince = %v, want nil", *v)
	}
	if _, err := parseProcStat(strings.NewReader("cpu0 1 2 3 4 5\n")); err == nil || !strings.Contains(err.Error(), "no cpu line") {
		t.Errorf("without the aggregate line: err = %v", err)
	}
	if _, err := parseProcStat(strings.NewReader("cpu 1 2 x 4 5\n")); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a bad counter: err = %v", err)
	}
}
