package mockllm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"sync"
	"time"
)

// CertValidity is how long the certificate NewTLS makes is valid, from a
// minute before it was made (for clocks a little behind).
const CertValidity = 7 * 24 * time.Hour

// TLSOptions say how the mock's TLS handshakes go. The zero value delays
// none. To make every request pay a handshake, serve with keep-alives off
// (http.Server.SetKeepAlivesEnabled(false)): each request then dials anew.
type TLSOptions struct {
	// HandshakeDelay holds each delayed handshake this long before the
	// server answers the client's hello: a slow connection set-up, which a
	// client measures in its connect stage. 0 or less delays nothing.
	HandshakeDelay time.Duration
	// HandshakeShare is the share of handshakes delayed, drawn in the order
	// the handshakes start from a source seeded with Seed; 0 or less, and 1
	// or more, delay every handshake.
	HandshakeShare float64
	// Seed seeds the draws of HandshakeShare.
	Seed uint64
}

// NewTLS makes a self-signed ECDSA P-256 certificate for 127.0.0.1, ::1 and
// localhost, valid for CertValidity, and returns the server configuration
// serving it (HTTP/1.1) with o's handshake delay, and the certificate in PEM, which a
// client adds to its roots to trust the mock. The private key never leaves
// the configuration.
func NewTLS(o TLSOptions) (*tls.Config, []byte, error) {
	cert, certPEM, err := selfSignedCert(time.Now())
	if err != nil {
		return nil, nil, err
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"}, // as over plain http: one stream per connection
	}
	if o.HandshakeDelay > 0 {
		cfg.GetConfigForClient = o.delayer()
	}
	return cfg, certPEM, nil
}

// selfSignedCert makes the certificate, valid from a minute before now.
func selfSignedCert(now time.Time) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("mockllm: TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("mockllm: TLS certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "xk6-llmstream mock"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(CertValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // its own root: clients trust it directly
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("mockllm: TLS certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("mockllm: TLS certificate: %w", err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// delayer is the GetConfigForClient hook that sleeps HandshakeDelay in the
// handshakes drawn, and leaves the configuration as it is.
func (o TLSOptions) delayer() func(*tls.ClientHelloInfo) (*tls.Config, error) {
	delayed := o.drawer()
	return func(*tls.ClientHelloInfo) (*tls.Config, error) {
		if delayed() {
			time.Sleep(o.HandshakeDelay)
		}
		return nil, nil
	}
}

// drawer returns the draw of each handshake in turn: whether it is delayed
// (HandshakeShare, seeded with Seed). It is safe for concurrent use.
func (o TLSOptions) drawer() func() bool {
	if o.HandshakeShare <= 0 || o.HandshakeShare >= 1 {
		return func() bool { return true }
	}
	var mu sync.Mutex
	r := mrand.New(mrand.NewPCG(o.Seed, purposeHandshake))
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		return r.Float64() < o.HandshakeShare
	}
}
