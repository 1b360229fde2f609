//go:build !unix

package record

import "os"

// lockFile is a no-op where flock is not available; writes stay atomic.
func lockFile(path string) (func(), error) { return func() {}, nil }

func openRead(path string) (*os.File, error) { return os.Open(path) }

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
}
