package runner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// InstallURL is where k6's installation is explained.
const InstallURL = "https://grafana.com/docs/k6/latest/set-up/install-k6/"

// K6BinEnv names the environment variable that points at the k6 binary.
const K6BinEnv = "K6_BIN"

// ErrK6NotFound is returned (wrapped) when no k6 binary can be found.
var ErrK6NotFound = errors.New("k6 not found")

// FindK6 returns the k6 binary to run: $K6_BIN when set (it must be an
// executable file), else "k6" on $PATH, both read from env (a list of
// "KEY=value" as os.Environ returns). The error says how to install k6 and that
// K6_BIN can point at it.
func FindK6(env []string) (string, error) {
	if bin := LookupEnv(env, K6BinEnv); bin != "" {
		path, err := exec.LookPath(bin)
		if err != nil {
			if fi, statErr := os.Stat(bin); statErr == nil && fi.IsDir() {
				err = errors.New("is a directory")
			} else if errors.Is(err, exec.ErrNotFound) && !filepath.IsAbs(bin) && filepath.Base(bin) == bin {
				err = errors.New("not found on PATH")
			}
			return "", fmt.Errorf("%w: %s=%q: %v; point %s at a k6 binary (v1.x or v2.x) or install k6: %s",
				ErrK6NotFound, K6BinEnv, bin, cleanExecErr(err), K6BinEnv, InstallURL)
		}
		return path, nil
	}
	name := "k6"
	if runtime.GOOS == "windows" {
		name = "k6.exe"
	}
	for _, dir := range filepath.SplitList(LookupEnv(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%w on PATH: install k6 (v1.x or v2.x, the stock binary: no custom build is needed): %s — or set %s to the k6 binary",
		ErrK6NotFound, InstallURL, K6BinEnv)
}

// cleanExecErr drops the path that exec errors repeat.
func cleanExecErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
