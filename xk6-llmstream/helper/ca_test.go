package helper

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// startTLSMock serves a quick mock over TLS on 127.0.0.1 and returns its
// https URL and a file holding its certificate.
func startTLSMock(t *testing.T) (url, certFile string) {
	t.Helper()
	m, err := mockllm.New(mockllm.Config{Seed: 1, Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(2)}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, certPEM, err := mockllm.NewTLS(mockllm.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	certFile = filepath.Join(t.TempDir(), "mock.pem")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(m)
	srv.TLS = cfg
	srv.StartTLS()
	t.Cleanup(func() {
		m.Close()
		srv.Close()
	})
	return srv.URL, certFile
}

// TestWithRootCAsTrustsTheFile: with the mock's certificate loaded by
// LoadCAFile the request over https succeeds; without it, it fails to
// connect (the certificate is unknown), and the answer carries no key.
func TestWithRootCAsTrustsTheFile(t *testing.T) {
	mock, certFile := startTLSMock(t)
	pool, err := LoadCAFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	req := map[string]any{"url": mock + "/v1/chat/completions", "api": "openai-chat",
		"headers": map[string]string{"Authorization": "Bearer " + testKey},
		"body":    map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": "hi"}}}}

	_, a, raw := streamVia(t, startHelper(t, WithRootCAs(pool)).URL(), req)
	if !a.OK || a.OutputTokens != 2 {
		t.Errorf("trusting the certificate: %s", raw)
	}
	_, a, raw = streamVia(t, startHelper(t).URL(), req)
	if a.OK || a.Error == nil || a.Error.Kind != "connect" {
		t.Errorf("not trusting the certificate: %s; want a connect error", raw)
	}
	if strings.Contains(raw, testKey) {
		t.Errorf("the answer leaks the key: %s", raw)
	}
}

// TestLoadCAFileErrors: each bad file is an error naming it and saying
// what is wrong, without quoting what is in it.
func TestLoadCAFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const secret = "c2VjcmV0LWtleS1tYXRlcmlhbA=="
	for _, tt := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "missing.pem"), "no such file"},
		{write("empty.pem", ""), "no PEM certificate in it"},
		{write("text.pem", "not a certificate "+secret), "no PEM certificate in it"},
		{write("key.pem", "-----BEGIN PRIVATE KEY-----\n"+secret+"\n-----END PRIVATE KEY-----\n"), "no PEM certificate in it"},
		{write("bad.pem", "-----BEGIN CERTIFICATE-----\n"+secret+"\n-----END CERTIFICATE-----\n"), "PEM block 1"},
	} {
		pool, err := LoadCAFile(tt.path)
		if err == nil || pool != nil {
			t.Errorf("%s: pool %v, error %v; want an error", tt.path, pool, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.path) || !strings.Contains(msg, tt.want) || strings.Contains(msg, secret) {
			t.Errorf("%s: error %q; want it to name the file and say %q, quoting nothing of it", tt.path, msg, tt.want)
		}
	}
}
