package calibrate

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/mockllm"
)

// fakeMockEnv makes this test binary a stand-in for `xk6-llmstream mock`: it
// reads --profile, writes the Config it got to --log as a profile, prints a
// URL (or, with "silent", nothing) and waits for an interrupt.
const fakeMockEnv = "CALIBRATE_TEST_FAKE_MOCK"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeMockEnv); mode != "" {
		os.Exit(fakeMock(mode))
	}
	os.Exit(m.Run())
}

func fakeMock(mode string) int {
	fs := flag.NewFlagSet("mock", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	profile := fs.String("profile", "", "")
	logPath := fs.String("log", "", "")
	_ = fs.Parse(os.Args[1:])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	cfg, err := mockllm.LoadProfile(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	data, _ := cfg.Profile()
	if err := os.WriteFile(*logPath, data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if mode == "silent" {
		fmt.Fprintln(os.Stderr, "mock: cannot listen on "+*addr)
		return 1
	}
	fmt.Println("http://127.0.0.1:9") // never dialled
	<-stop
	return 0
}

func fakeMockCmd(mode string) func(args ...string) *exec.Cmd {
	return func(args ...string) *exec.Cmd {
		c := exec.Command(os.Args[0], args...)
		c.Env = append(os.Environ(), fakeMockEnv+"="+mode)
		return c
	}
}

// The child mock gets exactly calibrate's mock (through a profile), its URL
// is the first line it prints, and stop interrupts it and waits for it.
func TestChildMockServesTheSameConfig(t *testing.T) {
	dir := t.TempDir()
	start := childMock(fakeMockCmd("ok"), dir+"/profile.json")
	want := MockConfig(50*time.Millisecond, 20*time.Millisecond, 64)
	url, stop, err := start(want, dir+"/log")
	if err != nil {
		t.Fatal(err)
	}
	if url != "http://127.0.0.1:9" {
		t.Errorf("url %q", url)
	}
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	got, err := mockllm.LoadProfile(dir + "/log")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the child mock served\n%+v\nwant\n%+v", got, want)
	}
}

// A child that prints no URL is an error that says so with its stderr.
func TestChildMockWithoutURL(t *testing.T) {
	dir := t.TempDir()
	_, _, err := childMock(fakeMockCmd("silent"), dir+"/profile.json")(MockConfig(0, time.Millisecond, 1), dir+"/log")
	if err == nil || !strings.Contains(err.Error(), "did not print its URL") || !strings.Contains(err.Error(), "cannot listen on 127.0.0.1:0") {
		t.Fatalf("err = %v", err)
	}
}
