package output

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/input"

	"github.com/llmstream/xk6-llmstream/analyze/definitions"
	"github.com/llmstream/xk6-llmstream/internal/records"
)

// ReadExtras reads the records files for the summary's extra sections:
// every tool's definitions (when tools are named) and the token audit (when
// a record has one). They cover every recorded request of the records files:
// --where, --by, --from and --to do not apply. nil: no extra section.
func ReadExtras(recs []string, tools []definitions.Tool, lenient bool) (*Extras, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	c := definitions.New(tools)
	for _, p := range recs {
		if err := scanRecords(p, lenient, c.Add); err != nil {
			return nil, err
		}
	}
	x := &Extras{TokenAudit: c.Audit()}
	if tools != nil {
		x.Definitions = c.Report()
	}
	if x.Definitions == nil && x.TokenAudit == nil {
		return nil, nil
	}
	return x, nil
}

func scanRecords(path string, lenient bool, add func(*records.Record)) error {
	rc, err := input.Open(path, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := records.ScanWith(rc, records.ScanOptions{Lenient: lenient}, func(r *records.Record) error {
		add(r)
		return nil
	}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
