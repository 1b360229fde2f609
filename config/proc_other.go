//go:build !unix

package config

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available; the
// command itself is still killed at its timeout.
func ownProcessGroup(cmd *exec.Cmd) {}
