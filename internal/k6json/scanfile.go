package k6json

import (
	"fmt"
	"io"

	"github.com/llmstream/xk6-llmstream/internal/input"
)

// ScanFile opens path (see input.Open) and scans it; stdin is used for "-".
func (s *Scanner) ScanFile(path string, stdin io.Reader) (FileStats, error) {
	rc, err := input.Open(path, stdin)
	if err != nil {
		return FileStats{Input: path}, err
	}
	st, err := s.Scan(rc, path)
	if cerr := rc.Close(); err == nil && cerr != nil && st.Damage == "" {
		err = fmt.Errorf("%s: %w", path, cerr)
	}
	return st, err
}
