package sweep

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// writeServerTable writes what the server's own metrics said per level
// (--scrape), beside the client's view: nothing when no level was scraped.
func writeServerTable(w io.Writer, res *Result) error {
	if err := writeGPUTable(w, res); err != nil {
		return err
	}
	if !slices.ContainsFunc(res.Levels, func(l Level) bool { return l.Server != nil && l.Server.URL != "" }) {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "level\toffered %s\tscrapes\trunning peak/mean\twaiting peak/mean\tKV cache peak/mean\tserver TTFT mean ms\tprefix cache hit rate\n", res.Unit)
	for _, l := range res.Levels {
		s := l.Server
		if s == nil || s.URL == "" {
			continue
		}
		scrapes := fmt.Sprint(s.Scrapes)
		if s.Errors > 0 {
			scrapes += fmt.Sprintf(" (%d failed: %s)", s.Errors, s.LastError)
		}
		hit := "—"
		if s.PrefixHitRate != nil {
			hit = fmt.Sprintf("%.1f%%", 100**s.PrefixHitRate)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Index, FormatLevel(l.Offered), scrapes,
			fmtStat(s.Running, "%.4g"), fmtStat(s.Waiting, "%.4g"), fmtStat(s.Cache, "%.0f%%"), fmtPtr(s.TTFTMeanMS), hit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(the server's /metrics, scraped every %gs during each level)\n\n", res.Levels[0].serverInterval())
	return err
}

func fmtStat(s SignalStat, f string) string {
	if s.Peak == nil || s.Mean == nil {
		return "—"
	}
	p, m := *s.Peak, *s.Mean
	if f == "%.0f%%" {
		p, m = 100*p, 100*m
	}
	return fmt.Sprintf(f+" / "+f, p, m)
}

func (l Level) serverInterval() float64 {
	if l.Server == nil {
		return DefaultScrapeInterval.Seconds()
	}
	return l.Server.IntervalS
}

// writeGPUTable writes the GPUs' state per level (--gpu-metrics, or a
// --scrape page with DCGM metrics) and the energy per output token: nothing
// when no level had any.
func writeGPUTable(w io.Writer, res *Result) error {
	if !slices.ContainsFunc(res.Levels, func(l Level) bool { return l.Server != nil && l.Server.GPU != nil }) {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "level\toffered %s\tGPUs\tutil %% peak/mean\tmemory MiB peak/mean\tpower W peak/mean\tSM clock MHz mean\tJ/output token\n", res.Unit)
	for _, l := range res.Levels {
		if l.Server == nil || l.Server.GPU == nil {
			continue
		}
		g := l.Server.GPU
		clock := "—"
		if g.Clock.Mean != nil {
			clock = fmt.Sprintf("%.0f", *g.Clock.Mean)
		}
		energy := "—"
		if g.EnergyPerTokenJ != nil {
			energy = fmt.Sprintf("%.3g", *g.EnergyPerTokenJ)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", l.Index, FormatLevel(l.Offered), g.GPUs,
			fmtStat(g.Util, "%.0f"), fmtStat(g.MemUsed, "%.0f"), fmtStat(g.Power, "%.0f"), clock, energy)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(NVIDIA DCGM exporter, scraped every %gs; J/output token = mean power / output tokens per second)\n\n", res.Levels[0].serverInterval())
	return err
}
