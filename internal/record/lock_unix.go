//go:build unix

package record

import (
	"os"
	"syscall"

	"github.com/gwdash/gwdash/internal/atomicfile"
)

// lockFile holds an exclusive lock on path until the returned func runs,
// so that two gwdash processes do not interleave their writes. The lock
// file is opened without following a symbolic link (atomicfile.Open).
func lockFile(path string) (func(), error) {
	f, err := atomicfile.Open(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
