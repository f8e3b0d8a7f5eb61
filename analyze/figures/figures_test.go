package figures

import (
	"testing"
	"time"
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
