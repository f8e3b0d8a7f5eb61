package headroom

// CPUTimes are the machine's aggregate CPU counters (Linux: /proc/stat's
// "cpu" line, in hundredths of a second summed over the CPUs): how much of
// its CPU time was idle, whoever used the rest.
type CPUTimes struct{ Idle, Total uint64 }

// IdleSince is the idle share of the machine's CPUs between two readings;
// nil when no time was counted between them.
func (t CPUTimes) IdleSince(before CPUTimes) *float64 {
	if t.Total <= before.Total || t.Idle < before.Idle {
		return nil
	}
	v := float64(t.Idle-before.Idle) / float64(t.Total-before.Total)
	return &v
}
