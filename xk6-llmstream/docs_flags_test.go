package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/doctable"
)

// flagDocs is where the docs list each subcommand's flags: the tables whose
// first column is "flag" in these sections.
var flagDocs = map[string][]doctable.Section{
	"run":       {{Page: "runner.md", Anchor: "flags"}},
	"helper":    {{Page: "helper-api.md", Anchor: "starting-the-helper"}},
	"mock":      {{Page: "mock-flags.md", Anchor: "flags"}},
	"inspect":   {{Page: "commands.md", Anchor: "inspect"}},
	"dataset":   {{Page: "dataset.md", Anchor: "flags"}, {Page: "dataset.md", Anchor: "the-synthetic-generator"}},
	"version":   {{Page: "install.md", Anchor: "which-build-is-this"}},
	"init":      {{Page: "install.md", Anchor: "your-own-folder"}},
	"sweep":     {{Page: "sweep.md", Anchor: "flags"}},
	"calibrate": {{Page: "calibrate.md", Anchor: "flags"}},
}

// helpFlags runs "xk6-llmstream CMD -h" and returns the flags its FlagSet (or,
// for run, its hand-written flag list) prints.
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

// TestRunHelpListsEveryRunFlag: run's hand-written help lists exactly the
// flags its parser takes (runnerFlags), so the table checked against the help
// is checked against the parser.
func TestRunHelpListsEveryRunFlag(t *testing.T) {
	var own []string
	for _, f := range runnerFlags {
		if f != "help" && f != "h" {
			own = append(own, f)
		}
	}
	help := helpFlags(t, "run")
	sort.Strings(own)
	sort.Strings(help)
	if !slices.Equal(own, help) {
		t.Errorf("run -h lists %v; run parses %v", help, own)
	}
}

// TestExitCodeTableMatchesTheCode: docs/exit-codes.md's rows from xk6-llmstream list
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
	docs, err := doctable.ExitCodeRows(filepath.Join("..", "docs", "exit-codes.md"), "xk6-llmstream", "xk6-llmstream")
	if err != nil {
		t.Fatal(err)
	}
	missing, extra := doctable.Diff(docs, code)
	if len(missing) > 0 || len(extra) > 0 || len(code) < 3 {
		t.Errorf("docs/exit-codes.md's xk6-llmstream rows: codes %v missing, %v extra (main.go declares %v)", missing, extra, consts)
	}
}

// TestSubcommandTableMatchesDispatch: docs/commands.md's table of every
// subcommand names exactly the subcommands xk6-llmstream dispatches.
func TestSubcommandTableMatchesDispatch(t *testing.T) {
	docs, err := doctable.Subcommands(filepath.Join("..", "docs", "commands.md"), "commands", "xk6-llmstream")
	if err != nil {
		t.Fatal(err)
	}
	code := commands.Names()
	if d := doctable.Duplicates(docs); len(d) > 0 {
		t.Errorf("docs/commands.md names these xk6-llmstream subcommands twice: %v", d)
	}
	missing, extra := doctable.Diff(docs, code)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("docs/commands.md's table: xk6-llmstream subcommands %v missing, %v extra", missing, extra)
	}
}
