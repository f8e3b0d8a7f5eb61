package headroom

import (
	"sync/atomic"
	"time"
)

// CPUSampleInterval is how often a CPUSampler reads the machine's counters:
// /proc/stat counts in hundredths of a second per CPU, so a shorter interval
// would add reads, not resolution.
const CPUSampleInterval = 100 * time.Millisecond

// CPUSampler keeps the machine's latest CPU counters, read every interval,
// so that each request can be given the machine's idle share while it ran
// (the rule's CPU clause, llm_client_cpu_idle) for two atomic loads rather
// than two reads of /proc/stat.
type CPUSampler struct {
	read   func() (CPUTimes, error)
	latest atomic.Pointer[CPUTimes]
}

// NewCPUSampler returns a sampler that reads the counters with read
// (ReadCPU; tests give their own). It holds no reading until Sample or Run.
func NewCPUSampler(read func() (CPUTimes, error)) *CPUSampler {
	return &CPUSampler{read: read}
}

// Sample reads the counters once; a failed read leaves the last reading.
func (s *CPUSampler) Sample() error {
	t, err := s.read()
	if err != nil {
		return err
	}
	s.latest.Store(&t)
	return nil
}

// Run samples every interval until stop is closed. It returns at once when
// the counters cannot be read (off Linux): answers then carry no idle share.
func (s *CPUSampler) Run(stop <-chan struct{}, every time.Duration) {
	if s.Sample() != nil {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			_ = s.Sample() // a failed read keeps the last one: the span just grows
		}
	}
}

// Now is the latest reading; ok is false before the first one.
func (s *CPUSampler) Now() (t CPUTimes, ok bool) {
	p := s.latest.Load()
	if p == nil {
		return CPUTimes{}, false
	}
	return *p, true
}

// IdleSince is the machine's idle CPU share between mark (an earlier Now)
// and the latest reading; nil when either is missing or no time was counted
// between them (a request shorter than the interval).
func (s *CPUSampler) IdleSince(mark CPUTimes, markOK bool) *float64 {
	now, ok := s.Now()
	if !ok || !markOK {
		return nil
	}
	return now.IdleSince(mark)
}
