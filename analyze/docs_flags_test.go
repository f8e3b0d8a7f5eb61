package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/doctable"
)

// flagDocs is where the docs list each subcommand's flags: the tables whose
// first column is "flag" in these sections.
var flagDocs = map[string][]doctable.Section{
	"summary": {common, {Page: "analyze-summary.md", Anchor: "flags"}},
	"check":   {common, {Page: "analyze-check.md", Anchor: "flags"}},
	"plot":    {common, {Page: "plots.md", Anchor: "plot"}},
	"compare": {common, {Page: "analyze-compare.md", Anchor: "flags"}},
	"export":  {{Page: "export.md", Anchor: "flags"}},
	"report":  {common, {Page: "plots.md", Anchor: "plot"}, {Page: "plots.md", Anchor: "report"}},
	"history": {common, {Page: "history.md", Anchor: "flags"}},
	"tail":    {common, {Page: "analyze-tail.md", Anchor: "flags"}},
	"version": {{Page: "install.md", Anchor: "which-build-is-this"}},
}

// common is the table of the flags several subcommands share; its commands
// column says which.
var common = doctable.Section{Page: "analyze.md", Anchor: "shared-flags"}

// helpFlags runs "analyze CMD -h" and returns the flags its FlagSet prints.
func helpFlags(t *testing.T, name string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := realMain([]string{name, "-h"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("%s -h: exit %d: %s", name, code, errb.String())
	}
	flags := doctable.HelpFlags(errb.String() + out.String())
	if len(flags) == 0 {
		t.Fatalf("%s -h lists no flag:\n%s", name, errb.String())
	}
	return flags
}

// TestFlagTablesMatchTheCode: for every subcommand, the docs' flag tables list
// exactly the flags the subcommand defines: a flag the code has and the docs
// lack, one the docs list and the code lacks, or one listed twice, fails.
func TestFlagTablesMatchTheCode(t *testing.T) {
	for _, name := range commands.Names() {
		if _, ok := flagDocs[name]; !ok {
			t.Errorf("subcommand %s has no flag table in flagDocs", name)
		}
	}
	for name, sections := range flagDocs {
		if _, ok := commands.Lookup(name); !ok {
			t.Errorf("flagDocs names %s, which is no subcommand", name)
			continue
		}
		var in []doctable.Section
		for _, s := range sections {
			in = append(in, doctable.Section{Page: filepath.Join("..", "docs", s.Page), Anchor: s.Anchor})
		}
		docs, err := doctable.FlagsOf(in, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := doctable.Duplicates(docs); len(d) > 0 {
			t.Errorf("%s: the docs' tables (%v) list these flags twice: %v", name, sections, d)
		}
		missing, extra := doctable.Diff(docs, helpFlags(t, name))
		if len(missing) > 0 {
			t.Errorf("%s: flags missing from the docs' table (%v): %v", name, sections, missing)
		}
		if len(extra) > 0 {
			t.Errorf("%s: the docs' table (%v) lists flags the code lacks: %v", name, sections, extra)
		}
	}
}

// TestExitCodeTableMatchesTheCode: docs/exit-codes.md's rows from analyze list
// exactly the exit codes main.go declares (its exit… constants).
func TestExitCodeTableMatchesTheCode(t *testing.T) {
	consts, err := doctable.ExitCodes("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for v := range consts {
		code = append(code, strconv.Itoa(v))
	}
	docs, err := doctable.ExitCodeRows(filepath.Join("..", "docs", "exit-codes.md"), "analyze", "analyze")
	if err != nil {
		t.Fatal(err)
	}
	missing, extra := doctable.Diff(docs, code)
	if len(missing) > 0 || len(extra) > 0 || len(code) < 3 {
		t.Errorf("docs/exit-codes.md's analyze rows: codes %v missing, %v extra (main.go declares %v)", missing, extra, consts)
	}
}

// TestSubcommandTableMatchesDispatch: docs/commands.md's table of every
// subcommand names exactly the subcommands analyze dispatches.
func TestSubcommandTableMatchesDispatch(t *testing.T) {
	docs, err := doctable.Subcommands(filepath.Join("..", "docs", "commands.md"), "commands", "analyze")
	if err != nil {
		t.Fatal(err)
	}
	code := commands.Names()
	if d := doctable.Duplicates(docs); len(d) > 0 {
		t.Errorf("docs/commands.md names these analyze subcommands twice: %v", d)
	}
	missing, extra := doctable.Diff(docs, code)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("docs/commands.md's table: analyze subcommands %v missing, %v extra", missing, extra)
	}
}
