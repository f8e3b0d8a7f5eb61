package helper

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// AllowList says which upstream hosts the helper may stream from, so that it is
// never an open proxy. Loopback upstreams (127.0.0.0/8, ::1 and "localhost") are
// always allowed; everything else must match an entry.
//
// An entry is one of:
//
//	api.openai.com          a host name (case-insensitive), any port
//	api.openai.com:443      a host name and one port
//	*.openai.azure.com      any host name under that domain (not the domain itself);
//	                        never a public suffix: *.com, *.co.uk, *.github.io, *.internal
//	                        (golang.org/x/net/publicsuffix; an unlisted one-label name is a TLD)
//	10.1.2.3, [fd00::1]:80  an IP address, optionally with a port
//	10.0.0.0/8              an IP prefix (any port); ::ffff:10.0.0.0/104 is 10.0.0.0/8
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
	if err := a.checkCoverage(); err != nil {
		return nil, err
	}
	return a, nil
}

// The open-proxy bounds: the most public addresses the IP entries of one
// allow-list may cover together (overlaps counted once; private and loopback
// ranges not counted; a port restriction does not lessen the count). 2^24
// is an IPv4 /8, already more than any one provider's API endpoints; 2^112
// is an IPv6 /16. Sets larger than these — 0.0.0.0/1 with 128.0.0.0/1, ::/1,
// 2000::/3 — make the helper an open proxy in all but name.
const (
	MaxPublicIPv4Log2 = 24
	MaxPublicIPv6Log2 = 112
)

// notCounted are the ranges the bounds leave out: loopback and private
// addresses (RFC 1918, RFC 4193), which reach no one else's server. Link-local
// (169.254.0.0/16, with cloud metadata services) is counted.
var notCounted = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("::1/128"),
}

// checkCoverage refuses IP entries that together cover more public
// addresses of one family than its bound.
func (a *AllowList) checkCoverage() error {
	for _, fam := range []struct {
		v4   bool
		log2 uint
		name string
	}{{true, MaxPublicIPv4Log2, "IPv4"}, {false, MaxPublicIPv6Log2, "IPv6"}} {
		var ps []netip.Prefix
		var texts []string
		for _, r := range a.rules {
			p := r.prefix
			if r.addr.IsValid() {
				p = netip.PrefixFrom(r.addr, r.addr.BitLen())
			}
			if !p.IsValid() {
				continue
			}
			if p.Addr().Is4() == fam.v4 {
				ps = append(ps, p)
				texts = append(texts, r.text)
			} else if v4, ok := embeddedIPv4(p); ok && fam.v4 {
				ps = append(ps, v4)
				texts = append(texts, r.text+" (reaching "+v4.String()+")")
			}
		}
		n := publicAddresses(ps)
		limit := new(big.Int).Lsh(big.NewInt(1), fam.log2)
		if n.Cmp(limit) > 0 {
			return fmt.Errorf("allow-list entries %s together allow %s public %s addresses, more than the 2^%d the helper accepts "+
				"(private and loopback ranges not counted): that would make it an open proxy; list the hosts or narrower prefixes instead",
				strings.Join(texts, ", "), approx(n), fam.name, fam.log2)
		}
	}
	return nil
}

// The IPv6 ranges that reach IPv4 addresses through a gateway: NAT64's
// well-known prefix (RFC 6052: the IPv4 address in the last 32 bits) and
// 6to4 (RFC 3056: in bits 16 to 47). An entry inside one counts as the IPv4
// addresses it reaches, so that 64:ff9b::/96 or 2002::/16 is refused like
// 0.0.0.0/0.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4      = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 is the IPv4 prefix that the IPv6 prefix p reaches through
// NAT64 or 6to4 (all of IPv4 when p holds one of those ranges whole).
func embeddedIPv4(p netip.Prefix) (netip.Prefix, bool) {
	all := netip.MustParsePrefix("0.0.0.0/0")
	for _, g := range []struct {
		r   netip.Prefix
		off int // the IPv4 address's first byte in the IPv6 address
	}{{nat64Prefix, 12}, {sixTo4, 2}} {
		switch {
		case p.Bits() < g.r.Bits() && p.Contains(g.r.Addr()):
			return all, true
		case g.r.Contains(p.Addr()):
			b := p.Addr().As16()
			v4 := netip.AddrFrom4([4]byte(b[g.off : g.off+4]))
			return netip.PrefixFrom(v4, min(p.Bits()-g.r.Bits(), 32)).Masked(), true
		}
	}
	return netip.Prefix{}, false
}

// publicAddresses counts the addresses of the union of ps (one family)
// outside notCounted. Two prefixes are nested or disjoint, so the union is
// the prefixes that no other contains, and each notCounted range is inside
// one of them, holds one of them, or is apart.
func publicAddresses(ps []netip.Prefix) *big.Int {
	total := new(big.Int)
	for i, p := range ps {
		outer := false
		for j, q := range ps {
			if i != j && q.Bits() <= p.Bits() && q.Contains(p.Addr()) && (q.Bits() < p.Bits() || j < i) {
				outer = true // inside q (or the same prefix listed earlier)
				break
			}
		}
		if outer {
			continue
		}
		n := size(p)
		for _, e := range notCounted {
			switch {
			case e.Addr().Is4() != p.Addr().Is4():
			case e.Bits() <= p.Bits() && e.Contains(p.Addr()):
				n.SetInt64(0)
			case p.Bits() < e.Bits() && p.Contains(e.Addr()):
				n.Sub(n, size(e))
			}
		}
		total.Add(total, n)
	}
	return total
}

// size is the number of addresses of p.
func size(p netip.Prefix) *big.Int {
	return new(big.Int).Lsh(big.NewInt(1), uint(p.Addr().BitLen()-p.Bits()))
}

// approx writes n as a power of two when it is one, else in full (IPv4) or
// as about 2^k.
func approx(n *big.Int) string {
	k := n.BitLen() - 1
	if new(big.Int).Lsh(big.NewInt(1), uint(k)).Cmp(n) == 0 {
		return fmt.Sprintf("2^%d", k)
	}
	if n.IsInt64() {
		return n.String()
	}
	return fmt.Sprintf("about 2^%d", k)
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
		if p.Addr().Is4In6() && p.Bits() >= 96 { // ::ffff:a.b.c.d/n is the IPv4 prefix a.b.c.d/(n−96), which it matches
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
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
	if ps, _ := publicsuffix.PublicSuffix(name); r.suffix && ps == name {
		return r, fmt.Errorf("%s is a public suffix (a top-level domain, or a domain under which anyone may register a name, "+
			"per the Public Suffix List): *.%s would reach everyone's hosts and make the helper an open proxy; list the hosts, "+
			"or a wildcard one level below it (*.example.%s)", name, name, name)
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
