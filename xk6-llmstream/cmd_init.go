package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/js"
)

const initUsage = `usage: xk6-llmstream init [--force] [DIR]

Writes into DIR (default: the current folder, created if missing) what a k6
script needs to use xk6-llmstream without this repository:

  llmstream.js    the k6 module's entry, as built into this binary
  lib/            the module's files by concern, which llmstream.js imports
  llmstream.d.ts  its TypeScript typings
  script.js       a starter load test that imports ./llmstream.js
  script.ts       the same starter in TypeScript (k6 v1.0+ runs .ts directly)

Existing files are left alone and init fails, naming them, unless --force is
given. The module and this binary must come from the same release: run init
again after upgrading.

Examples:
  xk6-llmstream init llm-test && cd llm-test && xk6-llmstream run script.js
  xk6-llmstream init --force .      # refresh llmstream.js and lib/ after an upgrade

Flags:
`

// initFile is one file init writes: its name in DIR and where it comes from.
type initFile struct {
	name string
	src  fs.FS
	path string
}

// initFiles are the files init writes: the module's entry, every file under
// xk6-llmstream/js/lib (the entry imports them by relative path), the typings and the
// starters. Names use forward slashes.
func initFiles() ([]initFile, error) {
	files := []initFile{{"llmstream.js", js.Module, "llmstream.js"}}
	err := fs.WalkDir(js.Module, "lib", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, initFile{p, js.Module, p})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded module: %w", err)
	}
	return append(files,
		initFile{"llmstream.d.ts", js.Module, "llmstream.d.ts"},
		initFile{"script.js", js.Starter, "starter/script.js"},
		initFile{"script.ts", js.Starter, "starter/script.ts"},
	), nil
}

// runInit is the `init` command.
func runInit(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("init", flag.ContinueOnError)
	fset.SetOutput(stderr)
	force := fset.Bool("force", false, "overwrite files that already exist")
	fset.Usage = func() {
		fmt.Fprint(stderr, initUsage)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{Err: err}
	}
	dir := "."
	switch fset.NArg() {
	case 0:
	case 1:
		dir = fset.Arg(0)
	default:
		return usagef("want at most one folder, got %q", fset.Args())
	}
	files, err := initFiles()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := initLinks(dir, files); err != nil {
		return err
	}
	if !*force {
		var present []string
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.name))); err == nil {
				present = append(present, f.name)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if len(present) > 0 {
			return usagef("%s already holds %s: nothing written (--force overwrites)", dir, strings.Join(present, ", "))
		}
	}
	return writeInitFiles(dir, files, stdout)
}

// initLinks refuses a symbolic link at any path init would write in dir (a
// file, or a folder such as lib/): with --force, writing there would replace
// or fill what the link points at, which may be outside dir.
func initLinks(dir string, files []initFile) error {
	seen := map[string]bool{}
	for _, f := range files {
		parts := strings.Split(f.name, "/")
		for i := range parts {
			p := filepath.Join(dir, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
			if seen[p] {
				continue
			}
			seen[p] = true
			fi, err := os.Lstat(p)
			if err != nil {
				break // not there: nothing below it is either
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				return fmt.Errorf("%s is a symbolic link (to %s): init does not write through links, which may lead outside %s; remove it and run init again", p, target, dir)
			}
		}
	}
	return nil
}

// writeInitFiles writes the files as one batch (internal/atomicfile): each
// under a temporary name, renamed into place once all are complete, so a
// failed write (a full disk) leaves no new file half-written.
func writeInitFiles(dir string, files []initFile, stdout io.Writer) error {
	var b atomicfile.Batch
	defer b.Abort()
	var names []string
	for _, f := range files {
		data, err := fs.ReadFile(f.src, f.path)
		if err != nil {
			return fmt.Errorf("embedded %s: %w", f.path, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := b.Write(dst, 0o644, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
		names = append(names, dst)
	}
	if err := b.Commit(); err != nil {
		return err
	}
	for _, dst := range names {
		if _, err := fmt.Fprintln(stdout, dst); err != nil {
			return err
		}
	}
	return nil
}
