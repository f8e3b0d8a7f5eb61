package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInstallWithDockerfileFlags installs both binaries with `go install` and
// the link flags the Dockerfile uses, and checks that `version` reports the
// commit those flags set: the -X path in the Dockerfile names a real variable.
func TestInstallWithDockerfileFlags(t *testing.T) {
	raw, err := os.ReadFile("docker/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-X (\S+)=\$\{COMMIT\}`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("the Dockerfile sets no -X ...=${COMMIT} link flag")
	}
	for _, pkg := range []string{"./xk6-llmstream", "./analyze"} {
		if !strings.Contains(string(raw), pkg) {
			t.Errorf("the Dockerfile does not build %s", pkg)
		}
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "-ldflags", "-X "+string(m[1])+"=0123abcd", "./xk6-llmstream", "./analyze")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	for _, name := range []string{"xk6-llmstream", "analyze"} {
		out, err := exec.Command(filepath.Join(gobin, name), "version").Output()
		if err != nil {
			t.Fatalf("%s version: %v", name, err)
		}
		if !strings.HasPrefix(string(out), name+" ") || !strings.Contains(string(out), "commit:  0123abcd\n") {
			t.Errorf("%s version printed:\n%s", name, out)
		}
	}
}
