package helper

import (
	"net"
	"strings"
	"testing"
)

// closedPort returns a loopback address on which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestFailuresByKind: a request to a closed port through the real engine is
// counted as kind "connect" with its message naming the address, with the
// key in its headers nowhere; a refusal (a wrong token) is counted under its
// own kind; a second failure of a kind keeps the first message.
func TestFailuresByKind(t *testing.T) {
	addr := closedPort(t)
	h := NewHandler(WithToken("tok"))
	body := `{"url":"http://` + addr + `/v1/chat/completions","api":"openai-chat","timeout_ms":5000,` +
		`"headers":{"Authorization":"Bearer ` + testKey + `"},"body":{"model":"m","messages":[{"role":"user","content":"hi"}]}}`
	for range 2 {
		if code, _ := post(t, h, body, map[string]string{"Authorization": "Bearer tok"}); code == 200 {
			t.Fatalf("a request to a closed port answered 200")
		}
	}
	post(t, h, body, map[string]string{"Authorization": "Bearer wrong"})

	got := h.Failures()
	if len(got) != 2 {
		t.Fatalf("Failures() = %+v, want connect and unauthorized", got)
	}
	if got[0].Kind != "connect" || got[0].Count != 2 || !strings.Contains(got[0].Example, addr) {
		t.Errorf("first kind %+v, want connect ×2 naming %s", got[0], addr)
	}
	if got[1].Kind != KindUnauthorized || got[1].Count != 1 || got[1].Example == "" {
		t.Errorf("second kind %+v, want %s ×1 with its message", got[1], KindUnauthorized)
	}
	for _, f := range got {
		if strings.Contains(f.Example, testKey) {
			t.Errorf("the key appears in the example of %s: %s", f.Kind, f.Example)
		}
	}
	if st := h.Stats(); st.Failed != 2 || st.Refused != 1 {
		t.Errorf("Stats() = %+v, want 2 failed and 1 refused", st)
	}
}

// TestFailuresRedactsAndBounds: an example holding a key-shaped string
// shows the marker instead, and a long message is cut to MaxFailureExample.
func TestFailuresRedactsAndBounds(t *testing.T) {
	var f failures
	f.add("http_4xx", "upstream said: bad key sk-proj-abcdefghijklmnop1234 "+strings.Repeat("x", 1000))
	got := f.list()
	if len(got) != 1 || strings.Contains(got[0].Example, "sk-proj-abcdefghijklmnop1234") || len(got[0].Example) > MaxFailureExample {
		t.Errorf("list() = %+v: want the key redacted and at most %d bytes", got, MaxFailureExample)
	}
	for i := range maxFailureKinds + 5 {
		f.add(strings.Repeat("k", i+1), "m")
	}
	total := int64(0)
	for _, k := range f.list() {
		total += k.Count
	}
	if total != int64(maxFailureKinds+6) || len(f.list()) > maxFailureKinds+1 {
		t.Errorf("%d failures counted in %d kinds, want %d in at most %d", total, len(f.list()), maxFailureKinds+6, maxFailureKinds+1)
	}
}
