package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseDist(t *testing.T) {
	t.Parallel()
	good := map[string]Dist{
		"512":                                 {Kind: Fixed, Mean: 512, Min: 512, Max: 512},
		"fixed:64":                            {Kind: Fixed, Mean: 64, Min: 64, Max: 64},
		"uniform:min=10,max=20":               {Kind: Uniform, Min: 10, Max: 20},
		"normal:mean=100,sd=10":               {Kind: Normal, Mean: 100, SD: 10, Min: 1},
		"lognormal:mean=50,sd=5,min=3,max=90": {Kind: LogNormal, Mean: 50, SD: 5, Min: 3, Max: 90},
	}
	for s, want := range good {
		got, err := ParseDist(s)
		if err != nil || got != want {
			t.Errorf("ParseDist(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if again, err := ParseDist(got.String()); err != nil || again != got {
			t.Errorf("round trip of %q via %q: %+v, %v", s, got.String(), again, err)
		}
	}
	for _, s := range []string{"", "0", "fixed:", "fixed:-3", "pareto:mean=3", "uniform:min=5", "normal:mean=5",
		"normal:mean=5,sd=x", "normal:mean=5,sd=1,bogus=2", "uniform:min=9,max=3", "lognormal:mean=0,sd=1",
		"normal:mean=5,sd=1,min=0"} {
		if d, err := ParseDist(s); err == nil {
			t.Errorf("ParseDist(%q) = %+v, want an error", s, d)
		}
	}
}

// Samples stay within bounds and have about the asked mean and sd.
func TestDistSample(t *testing.T) {
	t.Parallel()
	const n = 20000
	for _, c := range []struct {
		spec     string
		mean, sd float64
	}{
		{"uniform:min=100,max=300", 200, 200 / math.Sqrt(12)},
		{"normal:mean=500,sd=50", 500, 50},
		{"lognormal:mean=400,sd=200", 400, 200},
	} {
		d := mustDist(t, c.spec)
		rng := rand.New(rand.NewPCG(1, 2))
		var sum, sq float64
		for range n {
			x := d.Sample(rng)
			if x < d.Min || (d.Max > 0 && x > d.Max) {
				t.Fatalf("%s: sample %d out of bounds", c.spec, x)
			}
			sum += float64(x)
			sq += float64(x) * float64(x)
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-c.mean) > 0.03*c.mean || math.Abs(sd-c.sd) > 0.06*c.sd {
			t.Errorf("%s: mean %.1f sd %.1f, want about %.1f and %.1f", c.spec, mean, sd, c.mean, c.sd)
		}
	}
	// Bounds bind: a normal centred far above max is clamped to max.
	d := mustDist(t, "normal:mean=500,sd=1,min=7,max=9")
	if x := d.Sample(rand.New(rand.NewPCG(1, 1))); x != 9 {
		t.Errorf("clamped sample %d, want 9", x)
	}
}
