package helper

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// LoadCAFile returns the system's roots (none where the system has no pool)
// with the PEM certificates of the file at path added: for WithRootCAs, so
// that the helper trusts a private CA (a gateway's, or the mock's --tls
// certificate) as well as the public ones. It fails when the file cannot be
// read, holds no PEM certificate, or one does not parse; its errors name
// the file and never quote its contents.
func LoadCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the file and says why (e.g. no such file)
	}
	certs, err := parsePEMCerts(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// parsePEMCerts parses the CERTIFICATE blocks of data, skipping others;
// it fails when there is none or one does not parse.
func parsePEMCerts(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("no PEM certificate in it")
	}
	return certs, nil
}
