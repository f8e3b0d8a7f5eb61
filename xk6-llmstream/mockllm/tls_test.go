package mockllm

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// quickTLSConfig answers at once: no prefill, two tokens without pause.
func quickTLSConfig() Config {
	cfg := DefaultConfig()
	cfg.Default.Prefill = Prefill{}
	cfg.Default.ITL = ITL{}
	cfg.Default.OutputTokens = FixedCount(2)
	return cfg
}

// startTLSServer serves the mock on 127.0.0.1 over TLS made by NewTLS(o),
// keep-alives on or off, and returns its https URL and the certificate PEM.
func startTLSServer(t *testing.T, o TLSOptions, keepAlive bool) (string, []byte) {
	t.Helper()
	srv, err := New(quickTLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg, certPEM, err := NewTLS(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.TLS = cfg
	ts.Config.SetKeepAlivesEnabled(keepAlive)
	ts.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	if !strings.HasPrefix(ts.URL, "https://127.0.0.1:") {
		t.Fatalf("URL %s, want https on 127.0.0.1", ts.URL)
	}
	return ts.URL, certPEM
}

// trustingClient is the engine's client trusting certPEM (nil: the
// transport's default roots).
func trustingClient(t *testing.T, certPEM []byte) *stream.Client {
	t.Helper()
	tr := stream.NewTransport()
	if certPEM != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(certPEM) {
			t.Fatalf("no certificate in the PEM %q", certPEM)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	c := stream.NewClient(stream.WithTransport(tr))
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func chatOver(c *stream.Client, url string) *stream.Record {
	return c.Do(context.Background(), &stream.Request{URL: url + "/v1/chat/completions", Body: []byte(chatBody("m", 2, ""))})
}

// TestNewTLSCertificate: the PEM is one self-signed ECDSA P-256 certificate
// for the loopback names, valid now and for at most CertValidity.
func TestNewTLSCertificate(t *testing.T) {
	_, certPEM, err := NewTLS(TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	block, rest := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatalf("want exactly one CERTIFICATE block, got %q", certPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
		t.Errorf("public key %T, want ECDSA P-256", cert.PublicKey)
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		if err := cert.VerifyHostname(host); err != nil {
			t.Errorf("not valid for %s: %v", host, err)
		}
	}
	if !slices.ContainsFunc(cert.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.IPv6loopback) }) {
		t.Errorf("IP addresses %v lack ::1", cert.IPAddresses)
	}
	now := time.Now()
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) || cert.NotAfter.Sub(cert.NotBefore) > CertValidity+time.Minute {
		t.Errorf("valid %v to %v; want now within, at most %v", cert.NotBefore, cert.NotAfter, CertValidity+time.Minute)
	}
	if err := cert.CheckSignatureFrom(cert); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
}

// TestTLSServesToAClientTrustingThePEM: over https, a client trusting the
// PEM gets the answer; one trusting only its default roots fails to
// connect.
func TestTLSServesToAClientTrustingThePEM(t *testing.T) {
	url, certPEM := startTLSServer(t, TLSOptions{}, true)
	rec := chatOver(trustingClient(t, certPEM), url)
	if rec.Err != nil || rec.OutputTokens != 2 {
		t.Fatalf("trusting the PEM: error %v, %d output tokens; want an answer of 2", rec.Err, rec.OutputTokens)
	}
	rec = chatOver(trustingClient(t, nil), url)
	if rec.Err == nil || rec.Err.Kind != stream.KindConnect {
		t.Fatalf("not trusting the PEM: error %v; want a %s error", rec.Err, stream.KindConnect)
	}
}

// TestTLSHandshakeDelayShowsInConnect: a delayed handshake is part of the
// client's connect stage, which is then at least the delay; with
// keep-alives on, the next request reuses the connection (connect 0).
func TestTLSHandshakeDelayShowsInConnect(t *testing.T) {
	const delay = 30 * time.Millisecond
	url, certPEM := startTLSServer(t, TLSOptions{HandshakeDelay: delay}, true)
	c := trustingClient(t, certPEM)
	first := chatOver(c, url)
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	if first.Stages.Reused || first.Stages.Connect < delay {
		t.Errorf("first request: reused %v, connect %v; want a new connection of at least %v", first.Stages.Reused, first.Stages.Connect, delay)
	}
	second := chatOver(c, url)
	if second.Err != nil {
		t.Fatal(second.Err)
	}
	if !second.Stages.Reused || second.Stages.Connect != 0 {
		t.Errorf("second request: reused %v, connect %v; want the pooled connection", second.Stages.Reused, second.Stages.Connect)
	}
}

// TestTLSNoKeepAliveDialsEveryRequest: with keep-alives off each request
// sets up its own connection and pays the delayed handshake.
func TestTLSNoKeepAliveDialsEveryRequest(t *testing.T) {
	const delay = 5 * time.Millisecond
	url, certPEM := startTLSServer(t, TLSOptions{HandshakeDelay: delay}, false)
	c := trustingClient(t, certPEM)
	for i := range 3 {
		rec := chatOver(c, url)
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		if rec.Stages.Reused || rec.Stages.Connect < delay {
			t.Errorf("request %d: reused %v, connect %v; want a new connection of at least %v", i, rec.Stages.Reused, rec.Stages.Connect, delay)
		}
	}
}

// TestTLSHandshakeShareDraws: HandshakeShare delays about that share of
// the handshakes, the same ones for the same seed; a share of 0 or 1
// delays every one.
func TestTLSHandshakeShareDraws(t *testing.T) {
	draws := func(o TLSOptions) []bool {
		d := o.drawer()
		out := make([]bool, 1000)
		for i := range out {
			out[i] = d()
		}
		return out
	}
	a := draws(TLSOptions{HandshakeShare: 0.3, Seed: 7})
	if n := countTrue(a); n < 240 || n > 360 {
		t.Errorf("share 0.3 delayed %d of 1000 handshakes", n)
	}
	if !slices.Equal(a, draws(TLSOptions{HandshakeShare: 0.3, Seed: 7})) {
		t.Error("the same seed drew other handshakes")
	}
	if slices.Equal(a, draws(TLSOptions{HandshakeShare: 0.3, Seed: 8})) {
		t.Error("another seed drew the same handshakes")
	}
	for _, share := range []float64{0, 1} {
		if n := countTrue(draws(TLSOptions{HandshakeShare: share})); n != 1000 {
			t.Errorf("share %v delayed %d of 1000 handshakes, want all", share, n)
		}
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
