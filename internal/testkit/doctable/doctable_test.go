package doctable

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTablesOfASection(t *testing.T) {
	page := "# P\n\n## A\n\n| flag | what |\n|---|---|\n| `--from D`, `--to D` | a \\| b |\n| `-o FILE` | `x|y` |\n\n### A.1\n\n| flag |\n|---|\n| `--deep` |\n\n## B\n\n| flag |\n|---|\n| `--other` |\n"
	path := filepath.Join(t.TempDir(), "p.md")
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := Tables(path, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("section a: %d tables, want 2 (its own and its subsection's)", len(ts))
	}
	var flags []string
	for _, tb := range ts {
		for _, r := range tb.Rows {
			flags = append(flags, Flags(r.Cells[0])...)
		}
	}
	if want := []string{"from", "to", "o", "deep"}; !slices.Equal(flags, want) {
		t.Errorf("flags %v, want %v", flags, want)
	}
	if got := ts[0].Rows[0].Cells[1]; got != "a | b" {
		t.Errorf("escaped pipe: cell %q", got)
	}
	if got := ts[0].Rows[1].Cells[1]; got != "`x|y`" {
		t.Errorf("pipe in code: cell %q", got)
	}
	if _, err := Tables(path, "nope"); err == nil {
		t.Error("a missing heading is no error")
	}
	if _, err := TableWith(path, "b", "metric"); err == nil {
		t.Error("a missing table is no error")
	}
	m, e := Diff([]string{"a", "b"}, []string{"b", "c"})
	if !slices.Equal(m, []string{"c"}) || !slices.Equal(e, []string{"a"}) {
		t.Errorf("Diff: missing %v extra %v", m, e)
	}
}
