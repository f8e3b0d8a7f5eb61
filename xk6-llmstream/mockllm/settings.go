package mockllm

import (
	"errors"
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// A setting of the mock is declared once, as a field of Config (or of a
// struct it holds): its json tag is its profile key (profile.go decodes
// profiles by those tags) and, when it has a command-line flag, its flag and
// usage tags make that flag. In a usage tag {NAME} stands for `NAME`, the
// flag's argument in the help. The flags of the fields under "default" are
// model settings: given on the command line they set the default model and
// every model of the profile.
//
// A flag's type follows its field's: bool, int, uint64, float64, string and
// time.Duration as the flag package parses them; a Jitter field takes the
// sigma of a lognormal jitter (0: none), a Count field a fixed count (0:
// unset), a TokensPerEvent field one count for both its min and max.

// Setting is a setting that is both a profile key and a command-line flag.
type Setting struct {
	// Flag is the flag's name, without dashes.
	Flag string
	// Key is the profile key, a dotted path from the profile's top
	// ("slots", "default.itl.base"). The flag of a key under "default." sets
	// that key in "default" and in every model of "models".
	Key string
	// Usage is the flag's help, its argument's name in backquotes.
	Usage string

	index []int // the field's index path from the top struct
}

// Settings returns the settings that have a flag, in the order of Config's
// fields.
func Settings() []Setting { return append([]Setting(nil), configSettings...) }

// configSettings are Config's settings; a tag Config cannot carry is a
// programming error caught when the package loads (and by its tests).
var configSettings = mustSettings(configType)

// defaultIndex is the index of Config.Default: a setting whose path starts
// there is a model setting.
var defaultIndex = func() int {
	f, _ := configType.FieldByName("Default")
	return f.Index[0]
}()

func mustSettings(t reflect.Type) []Setting {
	s, err := settingsOf(t)
	if err != nil {
		panic(err)
	}
	return s
}

// settingsOf walks the struct type t by json tags and returns its fields that
// have a flag tag. A flagged field of a type no flag can hold, a flag without
// usage and a flag named twice are errors.
func settingsOf(t reflect.Type) ([]Setting, error) {
	var out []Setting
	seen := map[string]string{}
	var walk func(t reflect.Type, key string, index []int) error
	walk = func(t reflect.Type, key string, index []int) error {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			k := name
			if key != "" {
				k = key + "." + name
			}
			idx := append(append([]int(nil), index...), i)
			fl := f.Tag.Get("flag")
			if fl == "" {
				if f.Type.Kind() == reflect.Struct {
					if err := walk(f.Type, k, idx); err != nil {
						return err
					}
				}
				continue
			}
			usage := f.Tag.Get("usage")
			switch {
			case usage == "":
				return fmt.Errorf("setting %s: flag %q has no usage tag", k, fl)
			case seen[fl] != "":
				return fmt.Errorf("setting %s: flag %q is the flag of %s too", k, fl, seen[fl])
			case !flaggable(f.Type):
				return fmt.Errorf("setting %s: flag %q: no flag holds a %v", k, fl, f.Type)
			}
			seen[fl] = k
			usage = strings.NewReplacer("{", "`", "}", "`").Replace(usage)
			out = append(out, Setting{Flag: fl, Key: k, Usage: usage, index: idx})
		}
		return nil
	}
	if err := walk(t, "", nil); err != nil {
		return nil, err
	}
	return out, nil
}

func flaggable(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[time.Duration](), reflect.TypeFor[Jitter](), reflect.TypeFor[Count](), reflect.TypeFor[TokensPerEvent]():
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Uint64, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// registerSettings defines on fs the flag of each setting, holding its value
// in the matching field of values (a struct of the settings' type), whose
// value is the flag's default.
func registerSettings(fs *flag.FlagSet, settings []Setting, values reflect.Value) {
	for _, s := range settings {
		switch p := values.FieldByIndex(s.index).Addr().Interface().(type) {
		case *time.Duration:
			fs.DurationVar(p, s.Flag, *p, s.Usage)
		case *bool:
			fs.BoolVar(p, s.Flag, *p, s.Usage)
		case *int:
			fs.IntVar(p, s.Flag, *p, s.Usage)
		case *uint64:
			fs.Uint64Var(p, s.Flag, *p, s.Usage)
		case *float64:
			fs.Float64Var(p, s.Flag, *p, s.Usage)
		case *string:
			fs.StringVar(p, s.Flag, *p, s.Usage)
		case *Jitter:
			fs.Var((*sigmaFlag)(p), s.Flag, s.Usage)
		case *Count:
			fs.Var((*countFlag)(p), s.Flag, s.Usage)
		case *TokensPerEvent:
			fs.Var((*perEventFlag)(p), s.Flag, s.Usage)
		default: // settingsOf lets no other type through
			panic(fmt.Sprintf("mockllm: setting %s: no flag holds a %T", s.Key, p))
		}
	}
}

// applySettings copies, from values into dst (both of the settings' struct
// type), the settings whose flags were set on fs, calling also(s, v) for
// each with v the value copied.
func applySettings(fs *flag.FlagSet, settings []Setting, values, dst reflect.Value, also func(Setting, reflect.Value)) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, s := range settings {
		if !set[s.Flag] {
			continue
		}
		v := values.FieldByIndex(s.index)
		dst.FieldByIndex(s.index).Set(v)
		if also != nil {
			also(s, v)
		}
	}
}

// Flags are the mock's setting flags on a flag.FlagSet (RegisterFlags).
type Flags struct {
	fs     *flag.FlagSet
	values *Config // the flags' values; their defaults are DefaultConfig's
	models string
}

// RegisterFlags defines on fs the flag of every setting (Settings), whose
// default is DefaultConfig's value, and --models; after fs.Parse, Config
// builds the Config they give.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	values := DefaultConfig()
	f := &Flags{fs: fs, values: &values}
	registerSettings(fs, configSettings, reflect.ValueOf(f.values).Elem())
	fs.StringVar(&f.models, "models", "", "serve and list these comma-separated model `NAMES` (with the default settings unless the profile has them)")
	return f
}

// LoadConfig returns DefaultConfig, or the profile at path over it when path
// is not "" (LoadProfile).
func LoadConfig(profile string) (Config, error) {
	if profile == "" {
		return DefaultConfig(), nil
	}
	return LoadProfile(profile)
}

// Config returns the settings of DefaultConfig, then of the profile at path
// (when not ""), then of the flags given on the command line, validated: a
// flag not given leaves the profile's setting, a model flag given sets the
// default model and every model. A nil f has no flags.
func (f *Flags) Config(profile string) (Config, error) {
	cfg, err := LoadConfig(profile)
	if err != nil || f == nil {
		return cfg, err
	}
	if err := f.apply(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// apply sets in cfg the settings whose flags were given: the server's, then
// the models of --models (copies of the resulting default), then the model
// settings in the default model and every model.
func (f *Flags) apply(cfg *Config) error {
	dst := reflect.ValueOf(cfg).Elem()
	var model []Setting
	applySettings(f.fs, configSettings, reflect.ValueOf(f.values).Elem(), dst, func(s Setting, v reflect.Value) {
		if s.index[0] == defaultIndex {
			model = append(model, s)
		}
	})
	if err := f.addModels(cfg); err != nil {
		return err
	}
	for name, m := range cfg.Models {
		mv := reflect.ValueOf(&m).Elem()
		for _, s := range model {
			mv.FieldByIndex(s.index[1:]).Set(dst.FieldByIndex(s.index))
		}
		cfg.Models[name] = m
	}
	return nil
}

// addModels adds the models named by --models that cfg lacks.
func (f *Flags) addModels(cfg *Config) error {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "models" })
	if !given {
		return nil
	}
	for _, name := range strings.Split(f.models, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return fmt.Errorf("--models: empty model name in %q", f.models)
		}
		if _, ok := cfg.Models[name]; !ok {
			if cfg.Models == nil {
				cfg.Models = map[string]ModelConfig{}
			}
			cfg.Models[name] = cfg.Default
		}
	}
	return nil
}

// sigmaFlag is a Jitter as a flag: the sigma of a lognormal jitter, 0 none.
type sigmaFlag Jitter

func (j *sigmaFlag) String() string {
	if j == nil || j.Dist != JitterLognormal {
		return "0"
	}
	return strconv.FormatFloat(j.Sigma, 'g', -1, 64)
}

func (j *sigmaFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number (the lognormal sigma; 0: no jitter)")
	}
	*j = sigmaFlag{}
	if v != 0 {
		*j = sigmaFlag{Dist: JitterLognormal, Sigma: v}
	}
	return nil
}

// countFlag is a Count as a flag: a fixed count, 0 unset. A negative count
// is kept, for Validate to refuse with the profile's own message.
type countFlag Count

func (c *countFlag) String() string {
	if c == nil || c.Dist != CountFixed {
		return "0"
	}
	return strconv.Itoa(c.Value)
}

func (c *countFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return errors.New("want an integer")
	}
	*c = countFlag{}
	if n != 0 {
		*c = countFlag(FixedCount(int(n)))
	}
	return nil
}

// perEventFlag is a TokensPerEvent as a flag: one count for min and max.
type perEventFlag TokensPerEvent

func (t *perEventFlag) String() string {
	if t == nil {
		return "0"
	}
	if t.Min != t.Max {
		return fmt.Sprintf("%d-%d", t.Min, t.Max)
	}
	return strconv.Itoa(t.Min)
}

func (t *perEventFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return errors.New("want an integer")
	}
	*t = perEventFlag{Min: int(n), Max: int(n)}
	return nil
}
