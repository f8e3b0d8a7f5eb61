package helper

import (
	"errors"
	"fmt"
	"os"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/version"
)

// OverwriteFlag is the flag of helper and run that lets --records replace a
// file that is not a records file.
const OverwriteFlag = "--records-overwrite"

// RecordsOptions are the choices of OpenRecords.
type RecordsOptions struct {
	// Overwrite replaces an existing file that is neither empty nor a
	// records file (OverwriteFlag); without it such a file is refused.
	Overwrite bool
	// OnError is told the first write error as it happens (the error names
	// the file); the records after it are lost, counted, and CloseRecords
	// returns the error.
	OnError func(error)
}

// OpenRecords creates the records file at path
// (gzip when it ends in .gz), locked against a second writer, with the
// helper's name, version and instance in its header. A refusal to replace a
// file that is not a records file names the file and OverwriteFlag.
func OpenRecords(path string, o RecordsOptions) (*records.Writer, error) {
	host, _ := os.Hostname()
	w, err := records.Create(path, records.Options{
		Writer:    "xk6-llmstream helper " + version.Version,
		Instance:  fmt.Sprintf("%s/%d", host, os.Getpid()),
		Overwrite: o.Overwrite,
		OnError:   o.OnError,
	})
	if errors.Is(err, records.ErrNotRecordsFile) {
		err = fmt.Errorf("%w; check the --records file name, or pass %s to replace the file", err, OverwriteFlag)
	}
	return w, err
}
