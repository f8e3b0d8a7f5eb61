package sweep

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteConfigTables writes a server sweep's tables: each configuration's
// (WriteTable) under a heading, then one line per configuration with its
// status, its highest passing level and why it failed.
func WriteConfigTables(w io.Writer, res *Result) error {
	for i := range res.Configs {
		c := &res.Configs[i]
		fmt.Fprintf(w, "=== configuration %d: %s (%s) ===\n", c.Index, c.Name, c.Command)
		if len(c.Levels) > 0 {
			if err := WriteTable(w, c.Sub(res)); err != nil {
				return err
			}
		}
		if c.Reason != "" {
			fmt.Fprintf(w, "configuration %d %s: %s\n", c.Index, c.Status, c.Reason)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "config\tname\tstatus\tready s\tlevels\tmax passing %s\n", res.Unit)
	for _, c := range res.Configs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", c.Index, c.Name, c.Status, fmtPtr(c.ReadyS), len(c.Levels), fmtPtr(c.MaxPassing))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "sweep ended: %s\n", res.Stopped)
	return err
}
