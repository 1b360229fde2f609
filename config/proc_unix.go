//go:build unix

package config

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the command in a process group of its own and
// makes cancelling it kill the whole group: a key command that starts a
// child (an agent, a prompt) cannot outlive its timeout.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
