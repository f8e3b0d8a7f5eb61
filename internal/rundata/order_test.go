package rundata

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
)

func TestValueCompare(t *testing.T) {
	t.Parallel()
	// Each list is in the order CompareGroups gives.
	for _, want := range [][]string{
		{"1", "4", "8", "16", "100"},
		{"-1", "0.5", "2", "10"},
		{"2", "10", "a", "b"}, // numbers first
		{"c2", "c4", "c16", "c100"},
		{"gpt-4o", "gpt-4o-mini", "gpt-5"},
		{"model-a", "model-b", ""}, // a missing tag last
		{"v1.2", "v1.10"},
	} {
		got := slices.Clone(want)
		slices.Reverse(got)
		slices.SortStableFunc(got, valueCompare)
		if !slices.Equal(got, want) {
			t.Errorf("sorted %v, want %v", got, want)
		}
		for i := range want {
			if valueCompare(want[i], want[i]) != 0 {
				t.Errorf("%q ≠ itself", want[i])
			}
			for j := i + 1; j < len(want); j++ {
				if valueCompare(want[i], want[j]) != -1 || valueCompare(want[j], want[i]) != 1 {
					t.Errorf("%q and %q are not ordered consistently", want[i], want[j])
				}
			}
		}
	}
	// Different spellings of one number are distinct groups, in a fixed order.
	if c := valueCompare("1", "1.0"); c == 0 || c != -valueCompare("1.0", "1") {
		t.Errorf("1 vs 1.0: %d", c)
	}
	if c := valueCompare("07", "7"); c == 0 || c != -valueCompare("7", "07") {
		t.Errorf("07 vs 7: %d", c)
	}
	if c := naturalCompare("x07", "x7"); c == 0 || c != -naturalCompare("x7", "x07") {
		t.Errorf("x07 vs x7: %d", c)
	}
}

func TestGroupCompareByFileAndTag(t *testing.T) {
	t.Parallel()
	g := func(file int, conc string) *Group {
		return &Group{File: file, Labels: []k6json.Tag{{Key: "file", Value: fmt.Sprint("f", 9-file)}, {Key: "concurrency", Value: conc}},
			Key: fmt.Sprintf("file=f%d,concurrency=%s", 9-file, conc)}
	}
	gs := []*Group{g(1, "8"), g(0, "16"), g(1, "2"), g(0, "4")}
	slices.SortFunc(gs, CompareGroups)
	var keys []string
	for _, x := range gs {
		keys = append(keys, x.Key)
	}
	if want := "file=f9,concurrency=4 file=f9,concurrency=16 file=f8,concurrency=2 file=f8,concurrency=8"; strings.Join(keys, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(keys, " "), want)
	}
}
