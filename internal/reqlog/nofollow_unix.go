//go:build unix

package reqlog

import "syscall"

// noFollow makes creating the log refuse a symbolic link put there in
// the meantime.
const noFollow = syscall.O_NOFOLLOW
