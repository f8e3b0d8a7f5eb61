package helper

import (
	"strings"
	"testing"
)

// The open-proxy guard judges the entries together: sets of prefixes that
// cover every address, or nearly, are refused, however they are split; the
// boundary is 2^24 public IPv4 addresses and 2^112 public IPv6 addresses
// (a /8, a /16), with private and loopback ranges not counted.
func TestAllowListRefusesWideUnions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		entries []string
		refused bool
	}{
		{[]string{"0.0.0.0/1,128.0.0.0/1"}, true},
		{[]string{"0.0.0.0/1", "128.0.0.0/1"}, true}, // repeated flags
		{[]string{"::/1,8000::/1"}, true},
		{[]string{"::/1"}, true},
		{[]string{"2000::/3"}, true},
		{[]string{"0.0.0.0/2,64.0.0.0/2,128.0.0.0/2,192.0.0.0/2"}, true},
		{[]string{"12.0.0.0/7"}, true},
		{[]string{"11.0.0.0/7"}, false}, // 10.0.0.0/7: the private 10/8 and the public 11/8
		// The boundary: a public /8 is allowed, one address more is not.
		{[]string{"11.0.0.0/8"}, false},
		{[]string{"11.0.0.0/8,12.0.0.1"}, true},
		{[]string{"11.0.0.0/9,11.128.0.0/9"}, false},
		{[]string{"11.0.0.0/9,11.128.0.0/9,12.0.0.0/31"}, true},
		// Overlaps count once.
		{[]string{"11.0.0.0/8,11.1.0.0/16,11.2.3.4"}, false},
		{[]string{"2001:db8::/16"}, false},
		{[]string{"2001::/16,2002::/16"}, true},
		{[]string{"2001::/16,2001:db8::/32"}, false},
		// Private and loopback ranges do not count toward the bound.
		{[]string{"10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,11.0.0.0/8"}, false},
		{[]string{"fc00::/7,2001:db8::/16"}, false},
		{[]string{"8.0.0.0/5"}, true}, // 8.0.0.0-15.255.255.255 holds 10/8, but 7 public /8s
		{[]string{"api.openai.com,*.openai.azure.com,10.1.2.3,[2001:db8::1]:443"}, false},
	} {
		_, err := ParseAllowList(tt.entries...)
		if tt.refused && (err == nil || !strings.Contains(err.Error(), "open proxy")) {
			t.Errorf("%q: %v; want a refusal saying open proxy", tt.entries, err)
		}
		if !tt.refused && err != nil {
			t.Errorf("%q: refused: %v", tt.entries, err)
		}
	}
	_, err := ParseAllowList("0.0.0.0/1,128.0.0.0/1")
	if err == nil || !strings.Contains(err.Error(), "0.0.0.0/1") || !strings.Contains(err.Error(), "128.0.0.0/1") || !strings.Contains(err.Error(), "2^24") {
		t.Errorf("the error should name the entries and the bound: %v", err)
	}
}
