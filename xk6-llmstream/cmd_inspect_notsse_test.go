package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectNotSSE: bytes that hold no event (an HTML page, binary,
// nothing at all) are not a recording to decode: exit 2 with a message
// saying the input is not an SSE stream, and nothing on stdout.
func TestInspectNotSSE(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, body string
	}{
		{"html", "<html><body>502 Bad Gateway</body></html>\n"},
		{"binary", "\x00\x01\x02\xff\xfe garbage"},
		{"empty", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".sse")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"inspect", path}, {"inspect", "-"}} {
				var out, errb bytes.Buffer
				code := realMain(args, strings.NewReader(tt.body), &out, &errb)
				if code != exitUsage {
					t.Errorf("%v: exit %d, want %d (stdout %q)", args, code, exitUsage, out.String())
				}
				if msg := errb.String(); !strings.Contains(msg, "not an SSE stream") || !strings.Contains(msg, args[1]) {
					t.Errorf("%v: stderr %q: want it to name the input and say it is not an SSE stream", args, msg)
				}
				if out.Len() != 0 {
					t.Errorf("%v: stdout %q, want nothing", args, out.String())
				}
			}
		})
	}
}
