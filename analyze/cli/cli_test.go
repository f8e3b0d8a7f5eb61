package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		pos  []string
		by   string
	}{
		{[]string{"a.json", "--by", "model", "b.json"}, []string{"a.json", "b.json"}, "model"},
		{[]string{"--by=model", "-", "c.json"}, []string{"-", "c.json"}, "model"},
		{[]string{"a.json", "--", "--by", "x"}, []string{"a.json", "--by", "x"}, ""},
		{[]string{"--", "-weird.json"}, []string{"-weird.json"}, ""},
		{nil, nil, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var in Input
		in.Register(fs)
		pos, err := ParseArgs(fs, c.args)
		if err != nil || !slices.Equal(pos, c.pos) || in.By.String() != c.by {
			t.Errorf("%v: %v %q by %q, want %v by %q", c.args, err, pos, in.By.String(), c.pos, c.by)
		}
	}
}
