//go:build !unix

package record

import "os"

// lockFile is a no-op where flock is not available; writes stay atomic.
func lockFile(path string) (func(), error) { return func() {}, nil }
