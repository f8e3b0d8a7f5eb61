package runner

import (
	"context"
	"strings"
	"testing"
)

// TestRunChecksBaseURL: a value that is not a URL is shown as typed when it
// holds no key-like secret (and never when it does); a base URL that ends in
// an endpoint path is refused, saying which base URL to use. Nothing starts.
func TestRunChecksBaseURL(t *testing.T) {
	env, _ := fakeEnv(t)
	for _, tt := range []struct {
		value  string
		want   []string
		absent []string
	}{
		{"127.0.0.1:8000/v1", []string{`"127.0.0.1:8000/v1"`, `did you mean "http://127.0.0.1:8000/v1"?`}, nil},
		{"localhost:8000/v1", []string{`"localhost:8000/v1"`}, nil},
		{"api.example.com/" + testKey, []string{BaseURLEnv}, []string{testKey, "DO-NOT-LEAK"}},
		{"u:hunter2@127.0.0.1:8000", []string{BaseURLEnv}, []string{"hunter2"}},
		{"http://127.0.0.1:8000/v1/chat/completions", []string{"ends in the endpoint path /chat/completions", BaseURLEnv + "=http://127.0.0.1:8000/v1 "}, nil},
		{"https://api.anthropic.com/v1/messages/", []string{"/messages", "=https://api.anthropic.com/v1 "}, nil},
		{"http://127.0.0.1:11434/api/chat?key=" + testKey, []string{"/api/chat", "=http://127.0.0.1:11434 "}, []string{testKey}},
		{"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent", []string{"Gemini endpoint", "=https://generativelanguage.googleapis.com "}, nil},
	} {
		var stderr lockedBuffer
		_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: setEnv(env, BaseURLEnv, tt.value), Stderr: &stderr})
		if err == nil {
			t.Errorf("%s accepted", tt.value)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.value, err, w)
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(err.Error(), a) || strings.Contains(stderr.String(), a) {
				t.Errorf("%s: %q shown: %v", tt.value, a, err)
			}
		}
		if strings.Contains(stderr.String(), "helper at") {
			t.Errorf("%s: the helper started", tt.value)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:1/v1", "https://api.openai.com/v1/", "http://127.0.0.1:1"} {
		if _, err := checkBaseURL(ok); err != nil {
			t.Errorf("checkBaseURL(%q): %v", ok, err)
		}
	}
}
