package mockllm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const profilesDir = "../../scripts/mock-profiles"

func TestExampleProfiles(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join(profilesDir, "*.json"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("example profiles: %v, %v", paths, err)
	}
	for _, p := range paths {
		cfg, err := LoadProfile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if _, err := New(cfg); err != nil {
			t.Errorf("%s: New: %v", p, err)
		}
	}

	// The realistic profile of docs/mock-flags.md: 8 slots, lognormal TTFT, 1% stalls.
	r, err := LoadProfile(filepath.Join(profilesDir, "realistic.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := r.Default
	if r.Slots != 8 || d.Prefill.Jitter.Dist != JitterLognormal || d.Prefill.Base != 180*time.Millisecond ||
		d.Prefill.PerInputToken != 200*time.Microsecond || d.Stall.Prob != 0.01 || d.Stall.Duration != 250*time.Millisecond {
		t.Errorf("realistic: %+v", r)
	}

	// The fast profile answers at once.
	f, err := LoadProfile(filepath.Join(profilesDir, "fast.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Default.Prefill != (Prefill{}) || f.Default.ITL != (ITL{}) || f.Default.OutputTokens != FixedCount(16) {
		t.Errorf("fast: %+v", f.Default)
	}

	// Per-model overrides start from the default and change what they set.
	c, err := LoadProfile(filepath.Join(profilesDir, "compare-models.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, b, rm := c.Models["model-a"], c.Models["model-b"], c.Models["model-r"]
	if a.Prefill != c.Default.Prefill || b.Prefill.Base != 450*time.Millisecond || b.Prefill.PerInputToken != c.Default.Prefill.PerInputToken ||
		b.Prefill.Jitter != c.Default.Prefill.Jitter || b.ITL.Base != 40*time.Millisecond || b.Stall.Duration != 200*time.Millisecond {
		t.Errorf("compare-models: a %+v\nb %+v", a, b)
	}
	if !rm.ReasoningTokens.IsSet() || c.Default.ReasoningTokens.IsSet() || strings.Join(c.ModelNames(), ",") != "model-a,model-b,model-r" {
		t.Errorf("compare-models: r %+v, names %v", rm, c.ModelNames())
	}
}

func TestParseProfile(t *testing.T) {
	t.Parallel()
	cfg, err := ParseProfile([]byte(`{
		"seed": 9, "slots": 2, "queue_limit": 3, "retry_after": "1.5s", "api_key": "k",
		"default": {"itl": {"base": "5ms", "jitter": {"dist": "uniform", "spread": "1ms"}},
		            "output_tokens": {"dist": "uniform", "min": 3, "max": 9},
		            "tokens_per_event": {"min": 1, "max": 2}, "echo": true, "reasoning_field": "reasoning",
		            "stall": {"prob": 0.5, "duration": 0}},
		"models": {"x": {"output_tokens": 7, "prefill": null}}
	}`), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Default
	if cfg.Seed != 9 || cfg.Slots != 2 || cfg.QueueLimit != 3 || cfg.RetryAfter != 1500*time.Millisecond || cfg.APIKey != "k" {
		t.Errorf("server settings: %+v", cfg)
	}
	if d.ITL.Base != 5*time.Millisecond || d.ITL.Jitter != (Jitter{Dist: JitterUniform, Spread: time.Millisecond}) ||
		d.OutputTokens != (Count{Dist: CountUniform, Min: 3, Max: 9}) || d.TokensPerEvent != (TokensPerEvent{1, 2}) ||
		!d.Echo || d.ReasoningField != "reasoning" || d.Stall.Prob != 0.5 {
		t.Errorf("default: %+v", d)
	}
	// The default's prefill was left as DefaultConfig has it.
	if d.Prefill != DefaultConfig().Default.Prefill {
		t.Errorf("default prefill changed: %+v", d.Prefill)
	}
	x := cfg.Models["x"]
	if x.OutputTokens != FixedCount(7) || x.Prefill != (Prefill{}) || x.ITL != d.ITL || !x.Echo {
		t.Errorf("model x: %+v", x)
	}
}

func TestProfileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		profile, want string
	}{
		{`{"slots": 2,}`, "line 1, column 13"},
		{"{\n  \"slots\": 2\n  \"seed\": 1\n}", "line 3, column 3"},
		{`[]`, "want a JSON object"},
		{`{"slot": 2}`, `unknown field "slot"`},
		{`{"default": {"prefill": {"bass": "1s"}}}`, `default.prefill: unknown field "bass"`},
		{`{"default": {"itl": {"base": "fast"}}}`, `default.itl.base: want a duration`},
		{`{"default": {"itl": {"base": 5}}}`, `default.itl.base: want a duration string`},
		{`{"default": {"itl": {"base": "-5ms"}}}`, `itl.base: -5ms is negative`},
		{`{"slots": -1}`, `slots: -1 is negative`},
		{`{"slots": "8"}`, `slots: want an integer, got "8"`},
		{`{"default": {"prefill": {"jitter": {"dist": "gamma"}}}}`, `prefill.jitter.dist: unknown distribution "gamma"`},
		{`{"default": {"reasoning_tokens": {"min": 3}}}`, `default.reasoning_tokens: want an integer or an object with "dist"`},
		{`{"default": {"output_tokens": {"dist": "lognormal", "median": 0}}}`, `output_tokens.median: 0 is not a finite number > 0`},
		{`{"default": {"faults": {"http_429": 0.6, "disconnect": 0.6}}}`, `faults: rates sum to 1.2, more than 1`},
		{`{"default": {"faults": {"http_5xx": 1.5}}}`, `faults.http_5xx: 1.5 is not a probability`},
		{`{"default": {"faults": {"status_5xx": 404}}}`, `faults.status_5xx: 404 is not a 5xx status`},
		{`{"models": {"m": {"stall": {"prob": 2}}}}`, `models."m": stall.prob: 2 is not a probability`},
		{`{"models": {"m": {"tokens_per_event": {"min": 3, "max": 2}}}}`, `tokens_per_event: min 3, max 2`},
		{`{"models": {"m": {"reasoning_field": "thoughts"}}}`, `reasoning_field: "thoughts"`},
		{`{"models": {"": {}}}`, `empty model name`},
		{`{"models": []}`, `models: want an object`},
	} {
		_, err := ParseProfile([]byte(tc.profile), DefaultConfig())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n  error %v\n  want it to contain %q", tc.profile, err, tc.want)
		}
	}
}

func TestLoadProfileNamesTheFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(p, []byte(`{"seed": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProfile(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "seed") {
		t.Errorf("error %v does not name the file and the field", err)
	}
	if _, err := LoadProfile(p + ".missing"); err == nil || !strings.Contains(err.Error(), "bad.json.missing") {
		t.Errorf("missing file: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	if err := (&Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
	if err := func() error { c := DefaultConfig(); return c.Validate() }(); err != nil {
		t.Errorf("DefaultConfig: %v", err)
	}
	if _, err := New(Config{Default: ModelConfig{DecodeSlowdown: -1}}); err == nil || !strings.Contains(err.Error(), "mockllm: default: decode_slowdown") {
		t.Errorf("New with a bad config: %v", err)
	}
}

func FuzzParseProfile(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(profilesDir, "*.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"default":{"output_tokens":{"dist":"normal","mean":5,"stddev":100}}}`))
	f.Add([]byte(`{"models":{"a":null,"b":{"faults":null}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseProfile(data, DefaultConfig())
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseProfile accepted a profile that does not validate: %v", err)
		}
		// Every model's distributions draw without panicking and in range.
		for _, name := range cfg.ModelNames() {
			m := cfg.model(name)
			r := requestRand(cfg.Seed, 0, purposeLength)
			if n := m.OutputTokens.draw(r, 1); n < 0 || n > maxOutputTokens {
				t.Fatalf("output draw %d", n)
			}
			if d := m.Prefill.Jitter.apply(m.Prefill.Base, r); d < 0 {
				t.Fatalf("prefill draw %v", d)
			}
		}
	})
}

func TestUnknownFieldNamesFieldAndFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "typo.json")
	if err := os.WriteFile(p, []byte(`{"default": {"faults": {"http_503": 0.1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadProfile(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `default.faults: unknown field "http_503"`) ||
		!strings.Contains(err.Error(), "http_5xx") {
		t.Errorf("error %v does not name the file, the field and the known fields", err)
	}
}

// TestEverySettingHasAName checks that each field of the settings structs is
// named in profiles by a json tag, so a new setting cannot be left out of the
// profile format by accident.
func TestEverySettingHasAName(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Config](), reflect.TypeFor[ModelConfig](), reflect.TypeFor[Prefill](), reflect.TypeFor[ITL](),
		reflect.TypeFor[Stall](), reflect.TypeFor[Jitter](), reflect.TypeFor[Count](), reflect.TypeFor[TokensPerEvent](), reflect.TypeFor[Faults](),
	} {
		for i := range typ.NumField() {
			if f := typ.Field(i); f.Tag.Get("json") == "" {
				t.Errorf("%s.%s has no json tag", typ.Name(), f.Name)
			}
		}
	}
}

// TestProfileNullResets checks that null resets a setting, that a "dist"
// replaces a distribution whole, and that other settings keep their default.
func TestProfileNullResets(t *testing.T) {
	t.Parallel()
	cfg, err := ParseProfile([]byte(`{"seed": null, "default": {"itl": {"jitter": null, "max": "3ms"}, "output_tokens": null,
		"prefill": {"jitter": {"dist": "normal", "stddev": "2ms"}}}}`), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Default
	want := DefaultConfig().Default
	if cfg.Seed != 0 || d.ITL.Jitter != (Jitter{}) || d.ITL.Max != 3*time.Millisecond || d.ITL.Base != want.ITL.Base ||
		d.OutputTokens.IsSet() || d.Prefill.Jitter != (Jitter{Dist: JitterNormal, Stddev: 2 * time.Millisecond}) {
		t.Errorf("config: %+v", cfg)
	}
}

// A Config written by Profile is read back by ParseProfile as it was, over a
// base that differs from it everywhere the test's configs set something.
func TestProfileRoundTrip(t *testing.T) {
	realistic, err := LoadProfile(filepath.Join("..", "..", "scripts", "mock-profiles", "realistic.json"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := Config{Default: ModelConfig{Prefill: Prefill{Base: 50 * time.Millisecond}, ITL: ITL{Base: 20 * time.Millisecond}, OutputTokens: FixedCount(64)}}
	withModels := DefaultConfig()
	withModels.Models = map[string]ModelConfig{"a": fixed.Default, "b": DefaultConfig().Default}
	withModels.Burst = Burst{Start: time.Second, Delay: 300 * time.Millisecond}
	for name, c := range map[string]Config{"default": DefaultConfig(), "realistic": realistic, "fixed": fixed, "models": withModels} {
		data, err := c.Profile()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for baseName, base := range map[string]Config{"default": DefaultConfig(), "fixed": fixed} {
			got, err := ParseProfile(data, base)
			if err != nil {
				t.Fatalf("%s over %s: %v\n%s", name, baseName, err, data)
			}
			if !reflect.DeepEqual(got, c) {
				t.Errorf("%s over %s: read back\n%+v\nwant\n%+v", name, baseName, got, c)
			}
		}
	}
}
