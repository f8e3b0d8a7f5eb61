package helper

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/redact"
)

// HopHeader is set on every upstream request the helper sends. A helper that
// receives a request carrying it refuses it (508, KindLoop): the request came
// from a helper, so streaming it would chain helpers, possibly in a loop.
const HopHeader = "X-Llmstream-Hop"

// KindLoop is the kind of the refusal of a request that would make the helper
// stream from itself or from another helper.
const KindLoop = "helper_loop"

// loopRefusal is the refusal of a request that came from a helper.
func loopRefusal() *requestError {
	return &requestError{http.StatusLoopDetected, KindLoop,
		"the request came from an xk6-llmstream helper (" + HopHeader + " is set): a helper never streams from a helper; point the upstream URL at the LLM"}
}

// selfRefusal is the refusal of a request whose upstream is this helper.
func selfRefusal(u *url.URL) *requestError {
	return &requestError{http.StatusLoopDetected, KindLoop,
		"the upstream " + strconv.Quote(redact.URL(u.String())) + " is this helper itself: point the upstream URL at the LLM"}
}

// isSelf reports whether u points at the helper listening on self: the same
// port on a loopback, unspecified or own address, or on "localhost". A host
// name other than localhost is never resolved, so it is never "self" (another
// helper behind it is caught by HopHeader).
func isSelf(u *url.URL, self netip.AddrPort) bool {
	if !self.IsValid() {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if p, err := strconv.Atoi(port); err != nil || p != int(self.Port()) {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsUnspecified() || ip == self.Addr().Unmap()
}

// listenAddrPort is the address a listener is bound to, or the zero AddrPort.
func listenAddrPort(a net.Addr) netip.AddrPort {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.AddrPort{}
	}
	return ap
}
