package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// malformedAddrs are --addr values that are not HOST:PORT with a port from 0
// to 65535. Some of them fail to listen, others (an empty port) listen on a
// free port: all are bad flags, exit 2, before anything is started.
var malformedAddrs = []string{
	"",
	"127.0.0.1",          // no port
	"127.0.0.1:",         // empty port: net.Listen picks one
	":",                  // empty host and port
	"127.0.0.1:99999",    // port out of range
	"127.0.0.1:-1",       // negative port
	"127.0.0.1:http",     // a service name, not a port
	"127.0.0.1:80:80",    // two ports
	"[::1:8000",          // unclosed bracket
	"foo bar:8000",       // a space in the host
	"http://127.0.0.1:0", // a URL
}

// TestAddrMalformedIsUsageError: helper and mock refuse a malformed --addr
// as a usage error naming --addr and the value, before they listen. Their
// context is already canceled, so a command that starts anyway returns at
// once (with no usage error) instead of serving.
func TestAddrMalformedIsUsageError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cmd := range []struct {
		name  string
		serve func(ctx context.Context, args []string, stdout, stderr *bytes.Buffer) error
	}{
		{"helper", func(ctx context.Context, args []string, o, e *bytes.Buffer) error {
			return serveHelper(ctx, args, o, e)
		}},
		{"mock", func(ctx context.Context, args []string, o, e *bytes.Buffer) error { return serveMock(ctx, args, o, e) }},
	} {
		for _, addr := range malformedAddrs {
			var stdout, stderr bytes.Buffer
			err := cmd.serve(ctx, []string{"--addr", addr}, &stdout, &stderr)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("%s --addr %q: %v; want a usage error", cmd.name, addr, err)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "--addr") || !strings.Contains(msg, `"`+addr+`"`) {
				t.Errorf("%s --addr %q: error %q; want it to name --addr and the value", cmd.name, addr, msg)
			}
			if stdout.Len() != 0 {
				t.Errorf("%s --addr %q printed %q: it started", cmd.name, addr, stdout.String())
			}
		}
	}
}

// TestAddrMalformedExits2: through realMain, as a user runs it.
func TestAddrMalformedExits2(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"helper", "mock"} {
		var stdout, stderr bytes.Buffer
		if code := realMain([]string{cmd, "--addr", "127.0.0.1:99999"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
			t.Errorf("%s --addr 127.0.0.1:99999: exit %d, want %d (stderr %q)", cmd, code, exitUsage, stderr.String())
		}
	}
}

// TestAddrWellFormed: the forms the docs show still parse.
func TestAddrWellFormed(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.1:7070", ":0", "0.0.0.0:65535", "[::1]:0", "localhost:8000"} {
		if err := checkAddr(addr); err != nil {
			t.Errorf("checkAddr(%q) = %v, want nil", addr, err)
		}
	}
}
