//go:build !unix

package sweep

import "os/exec"

// A server sweep needs process groups, which this system does not have.
const serveSupported = false

func ownGroup(*exec.Cmd)    {}
func signalGroup(int, bool) {}
func groupAlive(int) bool   { return false }
