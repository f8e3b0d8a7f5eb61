package runner

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/redact"
)

// endpointPaths are the request paths of the APIs the module speaks (the
// module adds them to the base URL), longest first.
var endpointPaths = []string{"/chat/completions", "/completions", "/messages", "/responses", "/v2/chat", "/api/chat", "/api/generate"}

// checkBaseURL checks the value of LLM_BASE_URL: an http(s) URL with a host
// that does not already end in an API's endpoint path. The error names the
// value as typed when it holds nothing that may be a secret (showValue), and
// says which base URL to use.
func checkBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		hint := ""
		if showable(raw) && !strings.Contains(raw, "://") {
			hint = fmt.Sprintf(" (did you mean %q?)", "http://"+raw)
		}
		return nil, fmt.Errorf("%s=%s is not an http(s) URL with a host, such as http://127.0.0.1:8000/v1%s", BaseURLEnv, showValue(raw), hint)
	}
	path := strings.TrimRight(u.Path, "/")
	for _, p := range endpointPaths {
		if strings.HasSuffix(path, p) {
			base := *u
			base.Path = strings.TrimSuffix(path, p)
			base.RawPath, base.RawQuery, base.Fragment, base.User = "", "", "", nil
			return nil, fmt.Errorf("%s=%s ends in the endpoint path %s: give the base URL, %s=%s (the module adds each API's path)",
				BaseURLEnv, redact.URL(raw), p, BaseURLEnv, redact.URL(base.String()))
		}
	}
	if strings.Contains(path, ":streamGenerateContent") || strings.Contains(path, ":generateContent") {
		return nil, fmt.Errorf("%s=%s ends in a Gemini endpoint: give the base URL, %s=%s://%s (the module adds /v1beta/models/{model}:streamGenerateContent)",
			BaseURLEnv, redact.URL(raw), BaseURLEnv, u.Scheme, u.Host)
	}
	return u, nil
}

// showValue is a value for an error message: as typed, quoted, when it holds
// nothing that may be a secret — no user info ('@'), query or fragment, no
// key-shaped word or key-like segment (internal/redact's rules) — else in
// redact.URL's form.
func showValue(raw string) string {
	if showable(raw) {
		return fmt.Sprintf("%q", raw)
	}
	return redact.URL(raw)
}

func showable(raw string) bool {
	return !strings.ContainsAny(raw, "@?#") && redact.KeyShapes(raw) == raw && redact.Path(raw) == raw
}
