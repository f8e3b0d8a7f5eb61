package helper

import (
	"net/url"
	"strings"
	"testing"
)

func TestAllowList(t *testing.T) {
	t.Parallel()
	a, err := ParseAllowList("api.openai.com, *.openai.azure.com", "gw.example:8443,10.0.0.0/8", "[fd00::1]:80,192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		want bool
	}{
		// loopback is always allowed
		{"http://127.0.0.1:8000/v1/chat/completions", true},
		{"http://127.3.4.5/v1", true},
		{"http://[::1]:9/x", true},
		{"http://localhost:1234/x", true},
		{"http://LOCALHOST./x", false}, // a fully qualified name may go to DNS: not loopback
		{"http://[::ffff:127.0.0.1]:80/x", true},
		// host names, exact, any port, case and trailing dot ignored
		{"https://api.openai.com/v1/chat/completions", true},
		{"https://API.OpenAI.com./v1", true},
		{"http://api.openai.com:8080/v1", true},
		{"https://api.openai.com.evil.example/v1", false},
		{"https://evilapi.openai.com/v1", false},
		// wildcard: subdomains only
		{"https://my-res.openai.azure.com/openai", true},
		{"https://a.b.openai.azure.com/openai", true},
		{"https://openai.azure.com/openai", false},
		{"https://xopenai.azure.com/openai", false},
		// host with port: that port only (default ports count)
		{"https://gw.example:8443/v1", true},
		{"https://gw.example/v1", false},
		{"http://gw.example:80/v1", false},
		// IP prefix and addresses
		{"http://10.1.2.3:8000/v1", true},
		{"http://11.1.2.3:8000/v1", false},
		{"http://[fd00::1]:80/v1", true},
		{"http://[fd00::1]:81/v1", false},
		{"http://192.0.2.7:1/v1", true},
		// an IP never matches a host-name entry, nor a name an IP entry
		{"http://192.0.2.8/v1", false},
		{"https://anthropic.com/v1", false},
		// only http(s) with a host
		{"ftp://api.openai.com/x", false},
		{"file:///etc/passwd", false},
		{"http:///nohost", false},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatalf("bad test URL %q: %v", tt.url, err)
		}
		if got := a.Allows(u); got != tt.want {
			t.Errorf("Allows(%s) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestAllowListZeroAllowsOnlyLoopback(t *testing.T) {
	t.Parallel()
	var zero *AllowList
	for raw, want := range map[string]bool{
		"http://127.0.0.1:1/v1":  true,
		"http://localhost/v1":    true,
		"https://api.openai.com": false,
		"http://0.0.0.0:80/v1":   false,
		"http://10.0.0.1/v1":     false,
	} {
		u, _ := url.Parse(raw)
		if got := zero.Allows(u); got != want {
			t.Errorf("nil AllowList Allows(%s) = %v, want %v", raw, got, want)
		}
		if got := (&AllowList{}).Allows(u); got != want {
			t.Errorf("empty AllowList Allows(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestParseAllowListErrors(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{
		"*",
		"https://api.openai.com",
		"api.openai.com/v1",
		"user@host",
		"host:0",
		"host:99999",
		"host:http",
		"bad host",
		"a..b",
		"10.0.0.0/33",
		"*.",
	} {
		_, err := ParseAllowList(entry)
		if err == nil {
			t.Errorf("ParseAllowList(%q) succeeded, want an error", entry)
			continue
		}
		if !strings.Contains(err.Error(), entry) {
			t.Errorf("ParseAllowList(%q) error %q does not name the entry", entry, err)
		}
	}
	a, err := ParseAllowList("", " , ", "x.example")
	if err != nil {
		t.Fatalf("empty entries should be skipped: %v", err)
	}
	if got, want := a.String(), "loopback,x.example"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
