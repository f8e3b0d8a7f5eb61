package helper

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// AllowList says which upstream hosts the helper may stream from, so that it is
// never an open proxy. Loopback upstreams (127.0.0.0/8, ::1 and "localhost") are
// always allowed; everything else must match an entry.
//
// An entry is one of:
//
//	api.openai.com          a host name (case-insensitive), any port
//	api.openai.com:443      a host name and one port
//	*.openai.azure.com      any host name under that domain (not the domain itself)
//	10.1.2.3, [fd00::1]:80  an IP address, optionally with a port
//	10.0.0.0/8              an IP prefix (any port)
//
// Host names are matched as written in the request URL: they are never resolved,
// and an IP address in a URL never matches a host-name entry (nor the reverse).
// The zero AllowList allows loopback only.
type AllowList struct {
	rules []allowRule
}

type allowRule struct {
	name   string       // lower-case host name, or the domain for a wildcard
	suffix bool         // name is "*.<domain>": match subdomains of name
	addr   netip.Addr   // an IP address entry
	prefix netip.Prefix // an IP prefix entry
	port   int          // 0 means any port
	text   string       // the entry as given, for String
}

// ParseAllowList parses allow-list entries. Each argument may itself hold several
// comma-separated entries (as the --allow flag takes them); empty entries are
// skipped. An entry that is not a host, host:port, *.domain, IP or IP prefix is an
// error naming it.
func ParseAllowList(entries ...string) (*AllowList, error) {
	a := &AllowList{}
	for _, arg := range entries {
		for _, e := range strings.Split(arg, ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			r, err := parseAllowRule(e)
			if err != nil {
				return nil, fmt.Errorf("allow-list entry %q: %w", e, err)
			}
			a.rules = append(a.rules, r)
		}
	}
	return a, nil
}

func parseAllowRule(e string) (allowRule, error) {
	r := allowRule{text: e}
	if strings.Contains(e, "://") || strings.ContainsAny(e, "?#@") {
		return r, fmt.Errorf("want a host, host:port, *.domain, IP or IP prefix, not a URL")
	}
	if e == "*" {
		return r, fmt.Errorf("a bare * would make the helper an open proxy; list the hosts instead")
	}
	if strings.Contains(e, "/") {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return r, fmt.Errorf("not an IP prefix: %v", err)
		}
		if p.Bits() == 0 {
			return r, fmt.Errorf("%s matches every address and would make the helper an open proxy, like a bare *; list the hosts or a narrower prefix instead", e)
		}
		r.prefix = p.Masked()
		return r, nil
	}
	host := e
	if h, p, err := net.SplitHostPort(e); err == nil {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return r, fmt.Errorf("port %q is not a number from 1 to 65535", p)
		}
		host, r.port = h, port
	} else if strings.HasPrefix(e, "[") && strings.HasSuffix(e, "]") {
		host = e[1 : len(e)-1]
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		r.addr = ip.Unmap()
		return r, nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		r.suffix = true
		name = rest
	}
	if !validHostName(name) {
		return r, fmt.Errorf("%q is not a valid host name", host)
	}
	r.name = name
	return r, nil
}

// validHostName accepts letters, digits, '-', '_' and dots between non-empty labels.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Allows reports whether the helper may send a request to u. Only http and
// https URLs with a host are ever allowed.
func (a *AllowList) Allows(u *url.URL) bool {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	hostname := strings.ToLower(u.Hostname())
	host := strings.TrimSuffix(hostname, ".")
	port := 0
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		port = n
	} else if u.Scheme == "https" {
		port = 443
	} else {
		port = 80
	}
	ip, ipErr := netip.ParseAddr(host)
	if ipErr == nil {
		ip = ip.Unmap()
		if ip.IsLoopback() {
			return true
		}
	} else if hostname == "localhost" {
		// Only the bare name: "localhost." is a fully qualified name that the
		// system may send to DNS, which could answer anything.
		return true
	}
	if a == nil {
		return false
	}
	for _, r := range a.rules {
		if r.port != 0 && r.port != port {
			continue
		}
		switch {
		case r.prefix.IsValid():
			if ipErr == nil && r.prefix.Contains(ip) {
				return true
			}
		case r.addr.IsValid():
			if ipErr == nil && r.addr == ip {
				return true
			}
		case ipErr == nil:
			// an IP in the URL never matches a host-name entry
		case r.suffix:
			if strings.HasSuffix(host, "."+r.name) {
				return true
			}
		case host == r.name:
			return true
		}
	}
	return false
}

// String lists the entries as given, loopback first.
func (a *AllowList) String() string {
	parts := []string{"loopback"}
	if a != nil {
		for _, r := range a.rules {
			parts = append(parts, r.text)
		}
	}
	return strings.Join(parts, ",")
}
