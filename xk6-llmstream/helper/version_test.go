package helper

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

// The module sends its VERSION as module_version: the helper's own version is
// accepted, another is refused (400, naming both), and an absent field is
// accepted (older or other clients).
func TestModuleVersionHandshake(t *testing.T) {
	t.Parallel()
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs))
	const req = `{"url":"http://127.0.0.1:9/v1/chat/completions","body":{"model":"m"}`

	for _, extra := range []string{"", `,"module_version":` + strconv.Quote(version.Version)} {
		if code, m := post(t, h, req+extra+"}", nil); code != 200 || m["ok"] != true {
			t.Errorf("module_version %q: code %d, answer %v; want 200 ok", extra, code, m)
		}
	}
	if n := fs.count(); n != 2 {
		t.Fatalf("the engine got %d requests, want 2", n)
	}

	other := version.Version + "-other"
	code, m := post(t, h, req+`,"module_version":`+strconv.Quote(other)+"}", nil)
	kind, msg := errorKind(m)
	if code != 400 || kind != KindBadRequest {
		t.Errorf("mismatch: got %d %s, want 400 %s", code, kind, KindBadRequest)
	}
	if !strings.Contains(msg, strconv.Quote(other)) || !strings.Contains(msg, "helper is version "+version.Version) {
		t.Errorf("mismatch message does not name both versions: %q", msg)
	}
	if _, hasOK := m["ok"]; hasOK {
		t.Errorf("a refusal carries no ok field: %v", m)
	}
	if n := fs.count(); n != 2 {
		t.Errorf("the refused request reached the engine (%d requests)", n)
	}
	if got := h.Stats().Refused; got != 1 {
		t.Errorf("Stats().Refused = %d, want 1", got)
	}
}
