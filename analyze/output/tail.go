package output

import (
	"encoding/json"
	"io"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

// WriteTail writes a TTFT tail attribution in the format (text, markdown,
// json).
func WriteTail(w io.Writer, format string, res *tail.Result) error {
	switch format {
	case Markdown:
		return res.WriteMarkdown(w)
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.WriteText(w)
}
