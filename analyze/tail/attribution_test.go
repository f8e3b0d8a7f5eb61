package tail

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

const seeds = 8

// TestCauses: for each injected cause, over several seeds, the stage that
// explains most of the excess is the injected one and the first attribute
// that sets the tail apart is the injected one (and its value).
func TestCauses(t *testing.T) {
	for _, c := range causes {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= seeds; seed++ {
				res, err := Analyze(synth(20000, seed, &c), DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				if top := res.Top(); top.Name != c.stage {
					t.Errorf("seed %d: top stage %s (%.0f%%), want %s\n%s", seed, top.Name, 100*top.Share, c.stage, dump(res))
				}
				apart := res.Apart()
				if len(apart) == 0 || apart[0].Name != c.attr || (c.value != "" && apart[0].Value != c.value) {
					t.Errorf("seed %d: first attribute %v, want %s %s\n%s", seed, names(apart), c.attr, c.value, dump(res))
				}
				if !strings.Contains(res.Findings[0], "stage "+c.stage) {
					t.Errorf("seed %d: headline %q does not name stage %s", seed, res.Findings[0], c.stage)
				}
			}
		})
	}
}

// maxFalseRate is the stated rate: of all (seed, uninjected attribute)
// pairs, at most this share names the attribute as setting the tail apart.
const maxFalseRate = 0.05

// TestUninjectedRarelyNamed counts the attributes named that no cause
// injected, including the runs without any cause. Input length and cache-hit
// share are not counted: they set every run's prefill time (prefillAttrs),
// so a tail of long prompts or cache misses is a true finding in any run.
func TestUninjectedRarelyNamed(t *testing.T) {
	var named, pairs int
	var which []string
	run := func(c *cause, seed uint64) {
		res, err := Analyze(synth(20000, seed, c), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.Attributes {
			if slices.Contains(prefillAttrs, a.Name) || c != nil && (a.Name == c.attr || slices.Contains(c.also, a.Name)) {
				continue
			}
			pairs++
			if a.SetsApart {
				named++
				which = append(which, fmt.Sprintf("%v/%d:%s", causeName(c), seed, a.Name))
			}
		}
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		run(nil, seed+100)
		for i := range causes {
			run(&causes[i], seed)
		}
	}
	if rate := float64(named) / float64(pairs); rate > maxFalseRate {
		t.Errorf("uninjected attributes named in %d of %d cases (%.1f%% > %.0f%%): %v", named, pairs, 100*rate, 100*maxFalseRate, which)
	}
	t.Logf("uninjected attributes named in %d of %d cases: %v", named, pairs, which)
}

func causeName(c *cause) string {
	if c == nil {
		return "none"
	}
	return c.name
}

// TestSharesSumToOne: stages sum to TTFT, so the shares sum to 1 and the
// excess equals the difference of the mean TTFTs.
func TestSharesSumToOne(t *testing.T) {
	reqs := synth(5000, 7, &causes[1])
	res, err := Analyze(reqs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, s := range res.Stages {
		sum += s.Share
		if !(s.ShareLo <= s.Share && s.Share <= s.ShareHi) {
			t.Errorf("stage %s: share %v outside its interval [%v, %v]", s.Name, s.Share, s.ShareLo, s.ShareHi)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %v, want 1", sum)
	}
	var tsum, bsum float64
	var tn, bn int
	for _, q := range reqs {
		if ms(q.TTFT) > res.Threshold {
			tsum, tn = tsum+ms(q.TTFT), tn+1
		} else {
			bsum, bn = bsum+ms(q.TTFT), bn+1
		}
	}
	if want := tsum/float64(tn) - bsum/float64(bn); math.Abs(res.ExcessMS-want) > 1e-6*want {
		t.Errorf("excess %v ms, want the difference of mean TTFTs %v", res.ExcessMS, want)
	}
	if tn != res.TailCount {
		t.Errorf("tail count %d, want %d", res.TailCount, tn)
	}
}

func TestTooFew(t *testing.T) {
	_, err := Analyze(synth(100, 1, nil), DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "at least 200") {
		t.Errorf("100 requests for P99: err %v, want one saying at least 200 are needed", err)
	}
	o := DefaultOptions()
	o.Tail = 100
	if _, err := Analyze(synth(1000, 1, nil), o); err == nil {
		t.Error("tail 100: no error")
	}
}

func TestConcurrency(t *testing.T) {
	reqs := []Request{{StartNS: 0, EndNS: 10}, {StartNS: 5, EndNS: 20}, {StartNS: 10, EndNS: 12}, {StartNS: 30, EndNS: 40}}
	if got, want := concurrency(reqs), []int32{0, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("concurrency %v, want %v", got, want)
	}
}

func names(as []Attribute) []string {
	var s []string
	for _, a := range as {
		s = append(s, a.Name+"="+a.Value)
	}
	return s
}

func dump(r *Result) string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}
