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

	"github.com/llmstream/xk6-llmstream/js"
)

const initUsage = `usage: xk6-llmstream init [--force] [DIR]

Writes into DIR (default: the current folder, created if missing) what a k6
script needs to use xk6-llmstream without this repository:

  llmstream.js    the k6 module, as built into this binary
  llmstream.d.ts  its TypeScript typings
  script.js       a starter load test that imports ./llmstream.js
  script.ts       the same starter in TypeScript (k6 v1.0+ runs .ts directly)

Existing files are left alone and init fails, naming them, unless --force is
given. The module and this binary must come from the same release: run init
again after upgrading.

Examples:
  xk6-llmstream init llm-test && cd llm-test && xk6-llmstream run script.js
  xk6-llmstream init --force .      # refresh llmstream.js after an upgrade

Flags:
`

// initFile is one file init writes: its name in DIR and where it comes from.
type initFile struct {
	name string
	src  fs.FS
	path string
}

var initFiles = []initFile{
	{"llmstream.js", js.Module, "llmstream.js"},
	{"llmstream.d.ts", js.Module, "llmstream.d.ts"},
	{"script.js", js.Starter, "starter/script.js"},
	{"script.ts", js.Starter, "starter/script.ts"},
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
		return usageError{err}
	}
	dir := "."
	switch fset.NArg() {
	case 0:
	case 1:
		dir = fset.Arg(0)
	default:
		return usagef("want at most one folder, got %q", fset.Args())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !*force {
		var present []string
		for _, f := range initFiles {
			if _, err := os.Lstat(filepath.Join(dir, f.name)); err == nil {
				present = append(present, f.name)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if len(present) > 0 {
			return usagef("%s already holds %s: nothing written (--force overwrites)", dir, strings.Join(present, ", "))
		}
	}
	for _, f := range initFiles {
		data, err := fs.ReadFile(f.src, f.path)
		if err != nil {
			return fmt.Errorf("embedded %s: %w", f.path, err)
		}
		dst := filepath.Join(dir, f.name)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(stdout, dst); err != nil {
			return err
		}
	}
	return nil
}
