package mockllm

import (
	"fmt"
	"math"
	"net/http"
	"strings"
)

// MaxGPUs bounds Config.GPUs.
const MaxGPUs = 64

// The mock GPU's figures: an H100 SXM's power limit and memory, and the
// load (requests in flight per GPU) at which a mock without slots is busy.
const (
	GPUIdleW        = 70.0
	GPUMaxW         = 700.0
	GPUMemMiB       = 81559.0
	GPUWeightsMiB   = 60000.0 // the model's weights, held at idle
	GPUMiBPerReq    = 400.0   // KV cache per request in flight
	GPUIdleClockMHz = 1410.0
	GPUMaxClockMHz  = 1980.0
	// GPUBusyAt is the requests in flight per GPU at which a mock without
	// Slots shows 100% utilization.
	GPUBusyAt = 8
)

// purposeGPU is the random stream of a scrape's noise.
const purposeGPU uint64 = 101

// The DCGM exporter's metric names (dcgm-exporter's default counters).
const (
	DCGMUtil    = "DCGM_FI_DEV_GPU_UTIL"
	DCGMFBUsed  = "DCGM_FI_DEV_FB_USED"
	DCGMPower   = "DCGM_FI_DEV_POWER_USAGE"
	DCGMSMClock = "DCGM_FI_DEV_SM_CLOCK"
)

// GPULoad is what the mock's GPU page derives its figures from: the share
// of capacity in use (0..1) and the requests in flight.
func (s *Server) GPULoad() (busy float64, inflight int64) {
	st := s.Stats()
	inflight = st.Active + s.calls.Load()
	capacity := float64(s.cfg.Slots * len(s.allPools()))
	if capacity <= 0 {
		capacity = float64(GPUBusyAt * s.gpus())
	}
	return math.Min(1, float64(inflight)/capacity), inflight
}

func (s *Server) gpus() int { return max(s.cfg.GPUs, 1) }

// serveGPUMetrics answers GET /dcgm/metrics like NVIDIA's dcgm-exporter:
// per GPU, utilization (%) = 100 × the share of capacity in use, power (W)
// from GPUIdleW to GPUMaxW in proportion, memory used (MiB) = weights + KV
// per request in flight (spread evenly), SM clock (MHz) from idle to boost;
// each with a little seeded noise (±1% of utilization) drawn per scrape.
func (s *Server) serveGPUMetrics(w http.ResponseWriter, _ *http.Request) {
	busy, inflight := s.GPULoad()
	n := s.gpus()
	seq := s.gpuScrapes.Add(1)
	r := requestRand(s.cfg.Seed, seq, purposeGPU)
	type gpu struct{ util, fb, power, clock float64 }
	gs := make([]gpu, n)
	for i := range gs {
		u := math.Max(0, math.Min(100, 100*busy+(2*r.Float64()-1)))
		gs[i] = gpu{
			util:  math.Round(u),
			fb:    math.Round(math.Min(GPUMemMiB, GPUWeightsMiB+GPUMiBPerReq*float64(inflight)/float64(n))),
			power: GPUIdleW + (GPUMaxW-GPUIdleW)*u/100,
			clock: math.Round(GPUIdleClockMHz + (GPUMaxClockMHz-GPUIdleClockMHz)*u/100),
		}
	}
	var b strings.Builder
	for _, m := range []struct {
		name, help string
		v          func(gpu) float64
	}{
		{DCGMSMClock, "SM clock frequency (in MHz).", func(g gpu) float64 { return g.clock }},
		{DCGMPower, "Power draw (in W).", func(g gpu) float64 { return g.power }},
		{DCGMUtil, "GPU utilization (in %).", func(g gpu) float64 { return g.util }},
		{DCGMFBUsed, "Framebuffer memory used (in MiB).", func(g gpu) float64 { return g.fb }},
	} {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", m.name, m.help, m.name)
		for i, g := range gs {
			fmt.Fprintf(&b, "%s{gpu=\"%d\",UUID=\"GPU-mock-%04d\",device=\"nvidia%d\",modelName=\"mock H100\",Hostname=\"mockllm\"} %g\n",
				m.name, i, i, i, m.v(g))
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}
