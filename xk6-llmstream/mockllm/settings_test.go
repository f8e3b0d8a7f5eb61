package mockllm

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/doctable"
)

// knobs is a settings struct of the test's own: its Wobble setting is
// declared once, by its field, and must come out as a flag and a profile key.
type knobs struct {
	Seed  uint64 `json:"seed" flag:"seed" usage:"random {SEED}"`
	Plain int    `json:"plain"` // a profile key without a flag
	Inner struct {
		Wobble time.Duration `json:"wobble" flag:"wobble" usage:"wobble for {DURATION}"`
	} `json:"inner"`
}

func TestSettingDeclaredOnceIsFlagAndProfileKey(t *testing.T) {
	t.Parallel()
	settings, err := settingsOf(reflect.TypeFor[knobs]())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range settings {
		keys = append(keys, s.Flag+"="+s.Key)
	}
	if got := strings.Join(keys, " "); got != "seed=seed wobble=inner.wobble" {
		t.Fatalf("settings %q, want seed=seed wobble=inner.wobble", got)
	}

	// As a flag, with its type's parsing and its usage's argument name.
	values := knobs{}
	values.Inner.Wobble = time.Second // the flag's default
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerSettings(fs, settings, reflect.ValueOf(&values).Elem())
	f := fs.Lookup("wobble")
	if f == nil || f.DefValue != "1s" {
		t.Fatalf("flag wobble: %+v", f)
	}
	if name, usage := flag.UnquoteUsage(f); name != "DURATION" || usage != "wobble for DURATION" {
		t.Errorf("flag wobble: name %q, usage %q", name, usage)
	}
	if err := fs.Parse([]string{"--wobble", "soon"}); err == nil || !strings.Contains(err.Error(), "wobble") {
		t.Errorf("--wobble soon: %v, want an error naming the flag", err)
	}

	// As a profile key, by the same decoder as Config's profiles.
	var dst knobs
	if err := decodeObject(json.RawMessage(`{"plain": 4, "inner": {"wobble": "250ms"}}`), reflect.ValueOf(&dst).Elem()); err != nil {
		t.Fatal(err)
	}
	if dst.Inner.Wobble != 250*time.Millisecond || dst.Plain != 4 {
		t.Errorf("profile: %+v", dst)
	}

	// Then the flags given override the profile; the others leave it.
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	registerSettings(fs, settings, reflect.ValueOf(&values).Elem())
	if err := fs.Parse([]string{"--seed", "9"}); err != nil {
		t.Fatal(err)
	}
	applySettings(fs, settings, reflect.ValueOf(&values).Elem(), reflect.ValueOf(&dst).Elem(), nil)
	if dst.Seed != 9 || dst.Inner.Wobble != 250*time.Millisecond || dst.Plain != 4 {
		t.Errorf("profile then --seed 9: %+v, want seed 9, wobble 250ms, plain 4", dst)
	}
}

func TestSettingsRefuseBadTags(t *testing.T) {
	t.Parallel()
	type noUsage struct {
		A int `json:"a" flag:"a"`
	}
	type twice struct {
		A int `json:"a" flag:"x" usage:"a"`
		B int `json:"b" flag:"x" usage:"b"`
	}
	type badType struct {
		A []int `json:"a" flag:"a" usage:"a"`
	}
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[noUsage](), `setting a: flag "a" has no usage tag`},
		{reflect.TypeFor[twice](), `setting b: flag "x" is the flag of a too`},
		{reflect.TypeFor[badType](), `setting a: flag "a": no flag holds a []int`},
	} {
		if _, err := settingsOf(tc.t); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.t, err, tc.want)
		}
	}
}

// flagAndProfile gives, for a setting of each type, a flag value and the
// profile value that must set the same.
var flagAndProfile = map[reflect.Type][2]string{
	reflect.TypeFor[time.Duration]():  {"7ms", `"7ms"`},
	reflect.TypeFor[int]():            {"3", `3`},
	reflect.TypeFor[uint64]():         {"5", `5`},
	reflect.TypeFor[float64]():        {"0.25", `0.25`},
	reflect.TypeFor[bool]():           {"true", `true`},
	reflect.TypeFor[string]():         {"words", `"words"`},
	reflect.TypeFor[Jitter]():         {"0.5", `{"dist": "lognormal", "sigma": 0.5}`},
	reflect.TypeFor[Count]():          {"7", `7`},
	reflect.TypeFor[TokensPerEvent](): {"2", `2`},
}

// TestEachFlagSetsItsProfileKey: every setting's flag sets what its profile
// key sets, and a model setting's flag sets it in every model too.
func TestEachFlagSetsItsProfileKey(t *testing.T) {
	t.Parallel()
	if len(Settings()) < 30 {
		t.Fatalf("only %d settings", len(Settings()))
	}
	for _, s := range Settings() {
		typ := configType.FieldByIndex(s.index).Type
		vals, ok := flagAndProfile[typ]
		if !ok {
			t.Errorf("%s: no test value for a %v", s.Flag, typ)
			continue
		}
		// The profile: {"a": {"b": value}} for key a.b, and the same for model m.
		doc := vals[1]
		parts := strings.Split(s.Key, ".")
		for i := len(parts) - 1; i >= 0; i-- {
			doc = `{"` + parts[i] + `": ` + doc + `}`
		}
		want := DefaultConfig()
		if err := decodeObject(json.RawMessage(doc), reflect.ValueOf(&want).Elem()); err != nil {
			t.Errorf("%s: profile %s: %v", s.Flag, doc, err)
			continue
		}
		want.Models = map[string]ModelConfig{"m": DefaultConfig().Default}
		if s.index[0] == defaultIndex {
			want.Models["m"] = want.Default
		}

		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := RegisterFlags(fs)
		if err := fs.Parse([]string{"--" + s.Flag + "=" + vals[0]}); err != nil {
			t.Errorf("%s: %v", s.Flag, err)
			continue
		}
		got := DefaultConfig()
		got.Models = map[string]ModelConfig{"m": DefaultConfig().Default}
		if err := f.apply(&got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s=%s:\n got %+v\nwant %+v (profile %s)", s.Flag, vals[0], got, want, doc)
		}
	}
}

// TestFlagsOverrideProfile: the profile over the defaults, then only the
// flags given, in the default model and in every model.
func TestFlagsOverrideProfile(t *testing.T) {
	t.Parallel()
	profile := filepath.Join(t.TempDir(), "p.json")
	err := os.WriteFile(profile, []byte(`{"slots": 2, "seed": 4,
		"default": {"prefill": {"base": "9ms"}, "itl": {"base": "5ms"}},
		"models": {"x": {"itl": {"base": "6ms"}, "echo": true}}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f := RegisterFlags(fs)
	if err := fs.Parse([]string{"--itl", "7ms", "--seed", "3", "--models", "y, x", "--output-tokens", "5"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config(profile)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 3 || cfg.Slots != 2 {
		t.Errorf("seed %d (flag 3 over profile 4), slots %d (profile 2, flag not given)", cfg.Seed, cfg.Slots)
	}
	if names := strings.Join(cfg.ModelNames(), ","); names != "x,y" {
		t.Fatalf("models %s, want x,y", names)
	}
	for name, m := range map[string]ModelConfig{"default": cfg.Default, "x": cfg.Models["x"], "y": cfg.Models["y"]} {
		if m.ITL.Base != 7*time.Millisecond || m.Prefill.Base != 9*time.Millisecond || m.OutputTokens != FixedCount(5) {
			t.Errorf("%s: itl %v (flag 7ms), prefill %v (profile 9ms; flag default 150ms not given), output %+v (flag 5)",
				name, m.ITL.Base, m.Prefill.Base, m.OutputTokens)
		}
	}
	if !cfg.Models["x"].Echo || cfg.Models["y"].Echo {
		t.Errorf("echo: x %v (profile true), y %v", cfg.Models["x"].Echo, cfg.Models["y"].Echo)
	}

	// No flags: the profile alone; no profile: the defaults.
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	f = RegisterFlags(fs)
	if cfg, err = f.Config(profile); err != nil || cfg.Default.ITL.Base != 5*time.Millisecond || cfg.Models["x"].ITL.Base != 6*time.Millisecond {
		t.Errorf("profile alone: %v, itl %v, x %v", err, cfg.Default.ITL.Base, cfg.Models["x"].ITL.Base)
	}
	if cfg, err = (*Flags)(nil).Config(""); err != nil || !reflect.DeepEqual(cfg, DefaultConfig()) {
		t.Errorf("no profile, no flags: %v, %+v", err, cfg)
	}
}

func TestFlagsConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--models", "a,,b"}, `--models: empty model name in "a,,b"`},
		{[]string{"--output-tokens", "-1"}, "output_tokens.value: -1 is negative"},
		{[]string{"--fault-pause", "0.1"}, "faults.pause: a rate of 0.1 needs faults.pause_duration > 0"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := RegisterFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Config(""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterFlags(fs)
	for _, args := range [][]string{{"--itl-sigma", "x"}, {"--output-tokens", "1.5"}, {"--tokens-per-event", "two"}} {
		if err := fs.Parse(args); err == nil || !strings.Contains(err.Error(), args[0][2:]) {
			t.Errorf("%v: %v, want an error naming the flag", args, err)
		}
	}
}

// TestSettingsAreDocumented: docs/mock-flags.md's flags table pairs each
// flag with its profile key exactly as Settings does, both ways: a setting
// without its row, a row whose key is not its flag's, and a row naming a key
// no setting has all fail.
func TestSettingsAreDocumented(t *testing.T) {
	t.Parallel()
	tb, err := doctable.TableWith(filepath.Join("..", "..", "docs", "mock-flags.md"), "flags", "flag")
	if err != nil {
		t.Fatal(err)
	}
	kc := tb.Column("profile key")
	if kc < 0 {
		t.Fatalf("docs/mock-flags.md's flags table has no profile key column: %v", tb.Header)
	}
	var docs []string
	for _, r := range tb.Rows {
		flags, keys := doctable.Flags(r.Cells[0]), doctable.Code(r.Cells[kc])
		if len(keys) == 0 {
			continue // a flag of the command only (--addr, --profile, ...)
		}
		if len(flags) != 1 || len(keys) != 1 {
			t.Errorf("docs/mock-flags.md:%d: want one flag and one profile key, got %v and %v", r.Line, flags, keys)
			continue
		}
		docs = append(docs, "--"+flags[0]+" "+keys[0])
	}
	var code []string
	for _, s := range Settings() {
		code = append(code, "--"+s.Flag+" "+s.Key)
	}
	missing, extra := doctable.Diff(docs, code)
	for _, m := range missing {
		t.Errorf("docs/mock-flags.md's flags table has no row pairing %s", m)
	}
	for _, e := range extra {
		t.Errorf("docs/mock-flags.md's flags table pairs %s, which is no setting", e)
	}
	if d := doctable.Duplicates(docs); len(d) > 0 {
		t.Errorf("docs/mock-flags.md's flags table lists twice: %v", d)
	}
}
