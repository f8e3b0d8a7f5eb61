//go:build unix

package helper

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestLoadCAFileRefusesADevice: /dev/zero never ends; reading it whole would
// take all memory. The loader refuses it as not a regular file, naming it.
func TestLoadCAFileRefusesADevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	pool, err := LoadCAFile("/dev/zero")
	if err == nil || pool != nil {
		t.Fatalf("LoadCAFile(/dev/zero): got a pool: %v, error %v; want an error", pool != nil, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "/dev/zero") || !strings.Contains(msg, "not a regular file") {
		t.Errorf("error %q: want it to name /dev/zero and say it is not a regular file", msg)
	}
}

// TestLoadCAFileRefusesAFIFO: opening a FIFO blocks until a writer comes, and
// then it holds whatever the writer sends. The loader refuses it without
// opening it. A writer stands ready with a valid certificate, so that a
// loader that opens the FIFO would succeed (and this test fail) rather than
// hang.
func TestLoadCAFileRefusesAFIFO(t *testing.T) {
	_, certPEM, err := mockllm.NewTLS(mockllm.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	wrote := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until a reader opens it
		if err != nil {
			wrote <- err
			return
		}
		_, err = w.Write(certPEM)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		wrote <- err
	}()

	pool, err := LoadCAFile(fifo)
	if err == nil {
		<-wrote
		t.Fatalf("LoadCAFile(FIFO) read it (got a pool: %v); want an error", pool != nil)
	}
	if msg := err.Error(); !strings.Contains(msg, fifo) || !strings.Contains(msg, "not a regular file") {
		t.Errorf("error %q: want it to name the FIFO and say it is not a regular file", msg)
	}
	// Let the writer finish: be its reader.
	r, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, r)
	r.Close()
	if err := <-wrote; err != nil {
		t.Errorf("writer: %v", err)
	}
}

// TestLoadCAFileSizeBound: a regular file one byte over MaxCAFileBytes is
// refused with its name and the limit; one that fits is read.
func TestLoadCAFileSizeBound(t *testing.T) {
	_, certPEM, err := mockllm.NewTLS(mockllm.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The certificate, then comment lines up to the size wanted: PEM
	// decoding skips text outside the blocks.
	pad := func(name string, size int) string {
		p := filepath.Join(dir, name)
		data := append([]byte{}, certPEM...)
		for len(data) < size {
			data = append(data, '#')
		}
		data = data[:size]
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fits := pad("fits.pem", MaxCAFileBytes)
	if _, err := LoadCAFile(fits); err != nil {
		t.Errorf("a file of exactly %d bytes: %v", MaxCAFileBytes, err)
	}
	over := pad("over.pem", MaxCAFileBytes+1)
	pool, err := LoadCAFile(over)
	if err == nil || pool != nil {
		t.Fatalf("a file of %d bytes: got a pool: %v, error %v; want an error", MaxCAFileBytes+1, pool != nil, err)
	}
	if msg := err.Error(); !strings.Contains(msg, over) || !strings.Contains(msg, "1 MiB") {
		t.Errorf("error %q: want it to name the file and the limit (1 MiB)", msg)
	}
}
