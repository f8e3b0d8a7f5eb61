package helper

import (
	"net/url"
	"strings"
	"testing"
)

// A wildcard over a whole public suffix or TLD, and an IPv6 range that
// reaches all of IPv4 through a gateway (NAT64, 6to4) or as mapped
// addresses, would make the helper an open proxy: each is refused, naming
// the entry and why, as 0.0.0.0/1 is. Narrower ones are accepted.
func TestAllowListRefusesPublicSuffixesAndIPv4Gateways(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ entry, why string }{
		{"*.com", "public suffix"},
		{"*.co.uk", "public suffix"},
		{"*.github.io", "public suffix"},
		{"*.internal", "public suffix"},
		{"64:ff9b::/96", "public IPv4 addresses, more than the 2^24"},
		{"64:ff9b::/64", "public IPv4 addresses, more than the 2^24"},
		{"64:ff9b::8000:0/97", "public IPv4 addresses, more than the 2^24"},
		{"2002::/16", "public IPv4 addresses, more than the 2^24"},
		{"2002:8000::/17", "public IPv4 addresses, more than the 2^24"},
		{"::ffff:0.0.0.0/96", "matches every address"},
		{"::ffff:0.0.0.0/97", "public IPv4 addresses, more than the 2^24"},
		{"0.0.0.0/1", "public IPv4 addresses, more than the 2^24"},
	} {
		_, err := ParseAllowList(c.entry)
		if err == nil || !strings.Contains(err.Error(), c.entry) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseAllowList(%q): err = %v, want one naming it and %q", c.entry, err, c.why)
		}
	}
	a, err := ParseAllowList("*.openai.azure.com", "*.example.co.uk", "64:ff9b::a00:0/104", "2002:c000:0200::/40", "::ffff:10.0.0.0/104")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		u    string
		want bool
	}{
		{"https://x.openai.azure.com/v1", true},
		{"https://api.example.co.uk/", true},
		{"http://[64:ff9b::a01:203]/", true}, // NAT64 of 10.1.2.3
		{"http://[64:ff9b::808:808]/", false},
		{"http://[2002:c000:0201::1]/", true},
		{"http://10.9.8.7/", true},               // ::ffff:10.0.0.0/104 is 10.0.0.0/8
		{"http://[::ffff:10.9.8.7]:8000/", true}, // an IPv4-mapped address matches it too
		{"http://11.0.0.1/", false},
	} {
		u, _ := url.Parse(c.u)
		if got := a.Allows(u); got != c.want {
			t.Errorf("Allows(%s) = %v, want %v", c.u, got, c.want)
		}
	}
}
