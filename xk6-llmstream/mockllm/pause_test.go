package mockllm

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPauseFaultIsOneLongGapInASeededShare: with faults.pause, a seeded share
// of answers has exactly one gap of the pause's length between two token
// events (in the log's schedule, the ground truth), mid-answer, and still ends
// normally; the other answers have none. Counts only: no wall-clock bound.
func TestPauseFaultIsOneLongGapInASeededShare(t *testing.T) {
	t.Parallel()
	const (
		n     = 300
		rate  = 0.2
		pause = 30 * time.Millisecond
	)
	log := &logBuffer{}
	cfg := Config{Seed: 5, Log: log, Default: ModelConfig{OutputTokens: FixedCount(6),
		Faults: Faults{Pause: rate, PauseDuration: pause}}}
	srv, url := startServer(t, cfg)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if r := post(t, url+"/v1/chat/completions", chatBody("m", 6, "")); r.status != 200 || r.readErr != nil {
				t.Errorf("status %d, read error %v", r.status, r.readErr)
			}
		}()
	}
	wg.Wait()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	recs := log.records(t)
	if len(recs) != n {
		t.Fatalf("%d log lines, want %d", len(recs), n)
	}
	paused := 0
	for seq, r := range recs {
		if r.Outcome != "ok" || r.SentTokens != 6 {
			t.Errorf("seq %d: outcome %s, %d tokens sent; a pause must not end the answer", seq, r.Outcome, r.SentTokens)
		}
		var text []int64
		for i, k := range r.EventKinds {
			if k == "text" {
				text = append(text, r.EventDueNS[i])
			}
		}
		long, at := 0, -1
		for i := 1; i < len(text); i++ {
			if text[i]-text[i-1] >= int64(pause) {
				long, at = long+1, i
			}
		}
		want, _ := cfg.Default.Faults.draw(requestRand(cfg.Seed, seq, purposeFault))
		switch {
		case want == FaultPause && (long != 1 || r.Fault != FaultPause):
			t.Errorf("seq %d: drawn a pause, %d long gaps (fault %q), want 1", seq, long, r.Fault)
		case want != FaultPause && long != 0:
			t.Errorf("seq %d: no pause drawn, %d long gaps", seq, long)
		}
		if long == 1 {
			paused++
			if at < 1 || at >= len(text) {
				t.Errorf("seq %d: the pause is not between two text events", seq)
			}
		}
	}
	// Binomial(n, rate) within ±4.5σ: a function of the seed, so no flake.
	mean, sd := n*rate, math.Sqrt(n*rate*(1-rate))
	if math.Abs(float64(paused)-mean) > 4.5*sd {
		t.Errorf("%d of %d answers paused, want about %.0f (rate %g)", paused, n, mean, rate)
	}
	if got := srv.Stats().Faults[FaultPause]; got != int64(paused) {
		t.Errorf("Stats counts %d pauses, the log %d", got, paused)
	}
	t.Logf("%d of %d answers paused %s once", paused, n, pause)
}

func TestPauseNeedsADuration(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Default: ModelConfig{Faults: Faults{Pause: 0.1}}})
	if err == nil {
		t.Fatal("faults.pause without pause_duration accepted")
	}
	t.Log(err)
}

// TestPauseAtPlacesThePause: faults.pause_at puts every answer's one long gap
// before the text event of token 1 + ⌊pause_at × (N − 1)⌋ (in the log's
// schedule, the ground truth): early (0.1 of 20 tokens: before token 3) or
// late (0.9: before token 19); a share outside [0, 1) is refused, named.
func TestPauseAtPlacesThePause(t *testing.T) {
	t.Parallel()
	const pause = 40 * time.Millisecond
	for _, c := range []struct {
		at   float64
		want int // 0-based index of the text event after the pause
	}{{0.1, 2}, {0.9, 18}} {
		log := &logBuffer{}
		cfg := Config{Seed: 3, Log: log, Default: ModelConfig{OutputTokens: FixedCount(20),
			Faults: Faults{Pause: 1, PauseDuration: pause, PauseAt: c.at}}}
		srv, url := startServer(t, cfg)
		for range 3 {
			if r := post(t, url+"/v1/chat/completions", chatBody("m", 20, "")); r.status != 200 || r.readErr != nil {
				t.Fatalf("status %d, read error %v", r.status, r.readErr)
			}
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		for seq, r := range log.records(t) {
			var text []int64
			for i, k := range r.EventKinds {
				if k == "text" {
					text = append(text, r.EventDueNS[i])
				}
			}
			var long []int
			for i := 1; i < len(text); i++ {
				if text[i]-text[i-1] >= int64(pause) {
					long = append(long, i)
				}
			}
			if len(text) != 20 || len(long) != 1 || long[0] != c.want {
				t.Errorf("pause_at %v, seq %d: %d text events, long gaps before %v, want one before event %d", c.at, seq, len(text), long, c.want)
			}
		}
	}
	for _, bad := range []float64{-0.1, 1, 2} {
		_, err := New(Config{Default: ModelConfig{Faults: Faults{Pause: 0.1, PauseDuration: pause, PauseAt: bad}}})
		if err == nil || !strings.Contains(err.Error(), "faults.pause_at") {
			t.Errorf("pause_at %v: error %v, want one naming faults.pause_at", bad, err)
		}
	}
}
