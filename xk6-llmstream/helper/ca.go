package helper

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
)

// MaxCAFileBytes is the largest CA file LoadCAFile reads: 1 MiB holds
// hundreds of certificates (a system bundle is about 200 KiB).
const MaxCAFileBytes = 1 << 20

// LoadCAFile returns the system's roots (none where the system has no pool)
// with the PEM certificates of the file at path added: for WithRootCAs, so
// that the helper trusts a private CA (a gateway's, or the mock's --tls
// certificate) as well as the public ones. It fails when the file cannot be
// read, is not a regular file (a device such as /dev/zero never ends, a FIFO
// blocks the open until a writer comes), is larger than MaxCAFileBytes,
// holds no PEM certificate, or one does not parse; its errors name the file
// and never quote its contents. Every flag that reads a CA file uses it.
func LoadCAFile(path string) (*x509.CertPool, error) {
	data, err := readCAFile(path)
	if err != nil {
		return nil, err
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

// readCAFile reads a regular file of at most MaxCAFileBytes. It looks at the
// file before opening it (opening a FIFO would block), and again at what it
// opened, in case the path was replaced in between.
func readCAFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err // names the file and says why (e.g. no such file)
	}
	if err := checkCAFile(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkCAFile(path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxCAFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxCAFileBytes {
		return nil, caTooLarge(path)
	}
	return data, nil
}

func checkCAFile(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s): want a PEM file", path, fileKind(st.Mode()))
	}
	if st.Size() > MaxCAFileBytes {
		return caTooLarge(path)
	}
	return nil
}

func caTooLarge(path string) error {
	return fmt.Errorf("%s: larger than the limit of 1 MiB (%d bytes) for a CA file", path, MaxCAFileBytes)
}

// fileKind names a file mode's type for an error.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
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
