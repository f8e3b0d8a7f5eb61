package helper

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestAnswerDocumented: every field of the Answer type is in
// docs/helper-api.md's answer table, and the table names no field the type
// lacks.
func TestAnswerDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/helper-api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "### Answer 200")
	end := strings.Index(text, "### Refusals")
	if start < 0 || end < start {
		t.Fatal("docs/helper-api.md has no answer section")
	}
	table := map[string]bool{}
	for _, line := range strings.Split(text[start:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, f := range strings.Split(cell, ",") {
			table[strings.Trim(strings.TrimSpace(f), "`")] = true
		}
	}
	typ := reflect.TypeFor[Answer]()
	fields := map[string]bool{}
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "-" { // not written (Model, API, TokenSource: the tags')
			continue
		}
		fields[name] = true
		if !table[name] {
			t.Errorf("Answer field %q is not in docs/helper-api.md's answer table", name)
		}
	}
	for name := range table {
		if !fields[name] {
			t.Errorf("docs/helper-api.md's answer table names %q, which Answer lacks", name)
		}
	}
}
