package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxTokens bounds every token length the package reads or draws: a trace's
// input and output lengths, and the lengths of a distribution (--input-tokens,
// --output-tokens, --turn-input-tokens). Two million tokens is above every
// context window in service and, at about 4 bytes a token, still under
// MaxEntryBytes of prompt text; a larger length is refused where it is read
// (file and line, or the spec) rather than made into a prompt that cannot fit
// in memory. Documented in docs/input-bounds.md.
var MaxTokens = 2_000_000

// DistKind names a length distribution.
type DistKind string

// The length distributions.
const (
	Fixed     DistKind = "fixed"
	Uniform   DistKind = "uniform"
	Normal    DistKind = "normal"
	LogNormal DistKind = "lognormal"
)

// Dist is a distribution of lengths in tokens. Mean and SD are of the lengths
// themselves (for LogNormal too: the parameters of the log are derived). Samples
// outside [Min, Max] are drawn again, up to a bound, then clamped; Max 0 means
// no upper bound but MaxTokens. Uniform draws integers in [Min, Max].
type Dist struct {
	Kind     DistKind
	Mean, SD float64
	Min, Max int
}

// FixedDist is the distribution that is always n.
func FixedDist(n int) Dist { return Dist{Kind: Fixed, Mean: float64(n), Min: n, Max: n} }

// ParseDist reads a distribution: "512" or "fixed:512";
// "uniform:min=100,max=1000"; "normal:mean=512,sd=128[,min=1,max=2048]";
// "lognormal:mean=512,sd=256[,min=…,max=…]". Min defaults to 1.
func ParseDist(s string) (Dist, error) {
	kind, params, hasParams := strings.Cut(s, ":")
	if n, err := strconv.Atoi(s); err == nil {
		kind, params, hasParams = string(Fixed), strconv.Itoa(n), true
	}
	d := Dist{Kind: DistKind(kind), Min: 1}
	if d.Kind == Fixed {
		n, err := strconv.Atoi(params)
		if !hasParams || err != nil || n < 1 {
			return Dist{}, fmt.Errorf("length %q: want fixed:N with N a positive number of tokens", s)
		}
		if n > MaxTokens {
			return Dist{}, fmt.Errorf("length %q: %s", s, overMaxTokens(n))
		}
		return FixedDist(n), nil
	}
	if d.Kind != Uniform && d.Kind != Normal && d.Kind != LogNormal {
		return Dist{}, fmt.Errorf("length %q: unknown distribution %q (want fixed, uniform, normal or lognormal)", s, kind)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) {
			return Dist{}, fmt.Errorf("length %q: %q is not key=number (number ≥ 0)", s, kv)
		}
		if k != "sd" && x > float64(MaxTokens) {
			return Dist{}, fmt.Errorf("length %q: %s %s", s, k, overMaxTokens(x))
		}
		switch k {
		case "mean":
			d.Mean = x
		case "sd":
			d.SD = x
		case "min":
			d.Min = int(x)
		case "max":
			d.Max = int(x)
		default:
			return Dist{}, fmt.Errorf("length %q: unknown parameter %q (want mean, sd, min, max)", s, k)
		}
		seen[k] = true
	}
	return d, d.check(s, seen)
}

func (d Dist) check(s string, seen map[string]bool) error {
	need := []string{"mean", "sd"}
	if d.Kind == Uniform {
		need = []string{"min", "max"}
	}
	for _, k := range need {
		if !seen[k] {
			return fmt.Errorf("length %q: %s needs %s", s, d.Kind, strings.Join(need, " and "))
		}
	}
	switch {
	case d.Min < 1:
		return fmt.Errorf("length %q: min must be at least 1 token", s)
	case d.Max != 0 && d.Max < d.Min:
		return fmt.Errorf("length %q: max %d is below min %d", s, d.Max, d.Min)
	case d.Kind == LogNormal && d.Mean <= 0:
		return fmt.Errorf("length %q: lognormal needs mean > 0", s)
	}
	return nil
}

// overMaxTokens is the message for a length above MaxTokens.
func overMaxTokens[N int | float64](n N) string {
	return fmt.Sprintf("%v tokens is above the limit of %d tokens per length (see docs/input-bounds.md)", n, MaxTokens)
}

// String gives the distribution back in ParseDist's syntax.
func (d Dist) String() string {
	switch d.Kind {
	case Fixed:
		return fmt.Sprintf("fixed:%d", d.Min)
	case Uniform:
		return fmt.Sprintf("uniform:min=%d,max=%d", d.Min, d.Max)
	}
	s := fmt.Sprintf("%s:mean=%g,sd=%g,min=%d", d.Kind, d.Mean, d.SD, d.Min)
	if d.Max != 0 {
		s += fmt.Sprintf(",max=%d", d.Max)
	}
	return s
}

// Sample draws one length.
func (d Dist) Sample(rng *rand.Rand) int {
	switch d.Kind {
	case Fixed:
		return d.Min
	case Uniform:
		return d.Min + rng.IntN(d.Max-d.Min+1)
	}
	const redraws = 64
	hi := d.Max
	if hi == 0 || hi > MaxTokens {
		hi = MaxTokens
	}
	x := 0.0
	for range redraws {
		x = math.Round(d.draw(rng))
		if x >= float64(d.Min) && x <= float64(hi) {
			return int(x)
		}
	}
	return int(min(max(x, float64(d.Min)), float64(hi)))
}

func (d Dist) draw(rng *rand.Rand) float64 {
	if d.Kind == Normal {
		return d.Mean + d.SD*rng.NormFloat64()
	}
	// For lengths X with mean m and sd s, log X is normal with
	// σ² = ln(1 + s²/m²) and μ = ln m − σ²/2.
	v := math.Log1p(d.SD * d.SD / (d.Mean * d.Mean))
	return math.Exp(math.Log(d.Mean) - v/2 + math.Sqrt(v)*rng.NormFloat64())
}
