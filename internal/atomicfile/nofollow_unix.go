//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) }
