package mockllm

import (
	"testing"
	"time"
)

// TestBurst: a request arriving in the burst's window gets Burst.Delay more
// prefill; one outside it gets none. The windows are far from the test's
// moments (from the start for an hour, or from an hour on), so the test
// does not depend on how fast it runs.
func TestBurst(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		burst Burst
		want  time.Duration
	}{
		{"in the burst", Burst{Duration: time.Hour, Delay: 3 * time.Millisecond}, 4 * time.Millisecond},
		{"to the end", Burst{Delay: 3 * time.Millisecond}, 4 * time.Millisecond},
		{"before the burst", Burst{Start: time.Hour, Delay: 3 * time.Millisecond}, time.Millisecond},
		{"no burst", Burst{}, time.Millisecond},
	} {
		log := &logBuffer{}
		cfg := Config{Log: log, Burst: c.burst, Default: ModelConfig{Prefill: Prefill{Base: time.Millisecond}, OutputTokens: Count{Value: 2}}}
		srv, url := startServer(t, cfg)
		post(t, url+"/v1/chat/completions", chatBody("m", 2, ""))
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		recs := log.records(t)
		if len(recs) != 1 {
			t.Fatalf("%s: %d log lines, want 1", c.name, len(recs))
		}
		for _, r := range recs {
			if time.Duration(r.PrefillNS) != c.want {
				t.Errorf("%s: prefill %v, want %v", c.name, time.Duration(r.PrefillNS), c.want)
			}
		}
	}
}

func TestBurstInvalid(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Burst: Burst{Delay: -time.Second}}); err == nil {
		t.Error("negative burst delay: no error")
	}
}

func TestBurstProfile(t *testing.T) {
	t.Parallel()
	cfg, err := ParseProfile([]byte(`{"burst": {"start": "60s", "duration": "10s", "delay": "2s"}}`), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if want := (Burst{Start: time.Minute, Duration: 10 * time.Second, Delay: 2 * time.Second}); cfg.Burst != want {
		t.Errorf("burst %+v, want %+v", cfg.Burst, want)
	}
	if !cfg.Burst.covers(65*time.Second) || cfg.Burst.covers(70*time.Second) || cfg.Burst.covers(59*time.Second) {
		t.Error("burst [60s, 70s) covers the wrong offsets")
	}
}
