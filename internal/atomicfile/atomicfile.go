// Package atomicfile writes output files so that a failure — a full disk, a
// write error, an error of the code producing the content — never leaves a
// 0-byte or partial file behind: the content goes to a temporary name in the
// target's folder, is synced and renamed over the target only when complete,
// and the temporary file is removed on any failure. A file that was there
// before stays as it was until the rename.
//
// A rename replaces a symbolic link at the target instead of writing through
// it, so an output never lands outside its folder by way of a link.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// File is an output being written under a temporary name. Write to it, then
// Commit (or Abort: always safe to defer; it does nothing after Commit).
type File struct {
	f      *os.File
	w      io.Writer
	path   string
	perm   os.FileMode
	closed bool
	done   bool
}

// Create starts writing path with mode perm.
func Create(path string, perm os.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	af := &File{f: f, w: f, path: path, perm: perm}
	if fail := injected(path); fail != nil {
		af.w = fail(f)
	}
	return af, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// Path is the file's final name.
func (f *File) Path() string { return f.path }

// finish syncs, closes and sets the mode of the temporary file.
func (f *File) finish() error {
	err := f.f.Sync()
	f.closed = true
	err = errors.Join(err, f.f.Close())
	if err == nil {
		err = os.Chmod(f.f.Name(), f.perm)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// rename puts the finished temporary file in place.
func (f *File) rename() error {
	if err := os.Rename(f.f.Name(), f.path); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// Commit syncs the content and renames it to the final name; on failure the
// temporary file is removed and the final name left as it was.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	err := f.finish()
	if err == nil {
		err = f.rename()
	}
	if err != nil {
		f.Abort()
	}
	return err
}

// Abort removes the temporary file, unless Commit renamed it.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if !f.closed {
		f.closed = true
		f.f.Close()
	}
	os.Remove(f.f.Name())
}

// Write writes path through fn (buffered): the file appears, complete, only
// when fn and every write succeeded.
func Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile is os.WriteFile through a temporary file.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Batch writes several files that belong together (a report's folder, a
// module's files): each is staged under a temporary name, and Commit renames
// them into place only once all are complete, so a failure while writing
// leaves none of them half-written.
type Batch struct {
	files []*File
}

// Create stages one more file of the batch.
func (b *Batch) Create(path string, perm os.FileMode) (*File, error) {
	f, err := Create(path, perm)
	if err == nil {
		b.files = append(b.files, f)
	}
	return f, err
}

// Write stages path, written by fn.
func (b *Batch) Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	f, err := b.Create(path, perm)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Commit finishes every staged file, then renames them in order; on a
// failure before the renames nothing is in place, and the staged files are
// removed.
func (b *Batch) Commit() error {
	for _, f := range b.files {
		if err := f.finish(); err != nil {
			b.Abort()
			return err
		}
	}
	for _, f := range b.files {
		if err := f.rename(); err != nil {
			b.Abort()
			return err
		}
	}
	return nil
}

// Abort removes every staged file not yet renamed.
func (b *Batch) Abort() {
	for _, f := range b.files {
		f.Abort()
	}
}

// Injected write failures, for the tests of the commands that write files.
var (
	injectMu sync.Mutex
	inject   = map[string]func(io.Writer) io.Writer{}
)

// InjectFailure makes writes to a file created for path (after cleaning)
// fail with err once after bytes were written, as a full disk would: a test
// hook, so a command's test can show that a failed write leaves no output.
// The returned function removes it.
func InjectFailure(path string, after int64, err error) (undo func()) {
	key := injectKey(path)
	injectMu.Lock()
	inject[key] = func(w io.Writer) io.Writer { return &failingWriter{w: w, left: after, err: err} }
	injectMu.Unlock()
	return func() {
		injectMu.Lock()
		delete(inject, key)
		injectMu.Unlock()
	}
}

// Injected is w, failing as InjectFailure set for path, if it did: for an
// output that cannot go through a temporary file (a stream read while it is
// written) but removes itself on failure, so its tests can fail it too.
func Injected(path string, w io.Writer) io.Writer {
	if fail := injected(path); fail != nil {
		return fail(w)
	}
	return w
}

func injected(path string) func(io.Writer) io.Writer {
	injectMu.Lock()
	defer injectMu.Unlock()
	if len(inject) == 0 {
		return nil
	}
	return inject[injectKey(path)]
}

func injectKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

type failingWriter struct {
	w    io.Writer
	left int64
	err  error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= f.left {
		f.left -= int64(len(p))
		return f.w.Write(p)
	}
	n, _ := f.w.Write(p[:f.left])
	f.left = 0
	return n, f.err
}
