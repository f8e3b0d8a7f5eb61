// Package types holds the checks that llmstream.d.ts declares what llmstream.js
// exposes, and that the scripts users copy type-check against it and k6's types.
package types

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// declared reads llmstream.d.ts: its top-level exports and each class's members.
func declared(t *testing.T) (exports map[string]bool, classes map[string]map[string]bool) {
	t.Helper()
	src, err := os.ReadFile("../xk6-llmstream/js/llmstream.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	exports = map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^export (?:declare )?(?:const|function|class|interface|type) (\w+)`).FindAllSubmatch(src, -1) {
		exports[string(m[1])] = true
	}
	classes = map[string]map[string]bool{}
	member := regexp.MustCompile(`(?m)^  (?:readonly )?(?:get )?(\w+)\??[:(]`)
	for _, m := range regexp.MustCompile(`(?ms)^export (?:declare )?class (\w+) \{\n(.*?)^\}`).FindAllSubmatch(src, -1) {
		names := map[string]bool{}
		for _, mm := range member.FindAllSubmatch(m[2], -1) {
			names[string(mm[1])] = true
		}
		classes[string(m[1])] = names
	}
	return exports, classes
}

// TestDeclarationsCoverModule runs llmstream.js (under k6sim) and holds every
// export and every public field, method and getter of Client, Dataset and Session
// against llmstream.d.ts, so a script that reads client.api type-checks.
func TestDeclarationsCoverModule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{Script: "testdata/public.js", Sleep: func(time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range res.Console {
		if i := strings.Index(l, "public "); i >= 0 {
			line = l[i+len("public "):]
		}
	}
	var got map[string][]string
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("testdata/public.js printed %q: %v (console %q)", line, err, res.Console)
	}
	exports, classes := declared(t)
	if len(got["exports"]) < 10 {
		t.Fatalf("llmstream.js exports only %v: the probe is broken", got["exports"])
	}
	for _, name := range got["exports"] {
		if !exports[name] {
			t.Errorf("llmstream.js exports %s; llmstream.d.ts does not declare it", name)
		}
	}
	for _, class := range []string{"Client", "Dataset", "Session"} {
		if len(got[class]) == 0 {
			t.Fatalf("no members of a %s instance: the probe is broken", class)
		}
		for _, name := range got[class] {
			if strings.HasPrefix(name, "_") {
				continue // private by convention
			}
			if !classes[class][name] {
				t.Errorf("a %s has %s; llmstream.d.ts's class %s does not declare it", class, name, class)
			}
		}
	}
}

// tsc finds node and the pinned TypeScript of package.json, or skips; with
// LLMSTREAM_REQUIRE_TSC=1 (.ci/run, after installing them) it fails instead.
func tsc(t *testing.T) (node, script string) {
	t.Helper()
	skip := t.Skip
	if os.Getenv("LLMSTREAM_REQUIRE_TSC") == "1" {
		skip = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("no node on PATH: install Node.js 18+ and run `npm ci --prefix types` to type-check the scripts")
	}
	script, _ = filepath.Abs(filepath.Join("node_modules", "typescript", "bin", "tsc"))
	for _, f := range []string{"node_modules/typescript/bin/tsc", "node_modules/@types/k6/index.d.ts"} {
		if _, err := os.Stat(filepath.FromSlash(f)); err != nil {
			skip("no types/" + f + ": install the pinned packages with `npm ci --prefix types` to type-check the scripts")
		}
	}
	return node, script
}

// configs are the tsc projects of package.json's "check" script.
var configs = []string{"tsconfig.json", "tsconfig.starter-js.json"}

// TestScriptsTypeCheck runs tsc --strict --checkJs (tsconfig.json) over every
// script in scripts/ and every starter file `init` writes, with @types/k6: 0 errors.
func TestScriptsTypeCheck(t *testing.T) {
	node, script := tsc(t)
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}

	// Every file that must be checked is in one of the projects: tsc leaves out a
	// .js file next to a .ts of the same name, and a glob can miss a new file.
	want := map[string]bool{}
	for _, glob := range []string{"../scripts/*.js", "../xk6-llmstream/js/starter/*"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			want[abs] = true
		}
	}
	if len(want) < 10 {
		t.Fatalf("only %d scripts and starter files found", len(want))
	}
	listed := map[string]bool{}
	for _, c := range configs {
		out, err := run("-p", c, "--listFilesOnly")
		if err != nil {
			t.Fatalf("tsc -p %s --listFilesOnly: %v\n%s", c, err, out)
		}
		for _, l := range strings.Split(out, "\n") {
			listed[filepath.Clean(strings.TrimSpace(l))] = true
		}
	}
	var missing []string
	for f := range want {
		if !listed[f] {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("not type-checked by %v: %v", configs, missing)
	}

	for _, c := range configs {
		if out, err := run("-p", c); err != nil {
			t.Errorf("tsc -p types/%s (--strict --checkJs, @types/k6): %v\n%s", c, err, out)
		}
	}
}
