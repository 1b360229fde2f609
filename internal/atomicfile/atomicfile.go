// Package atomicfile writes a file whole or not at all: through a
// temporary file beside it, given its mode before any byte, then renamed
// over the target. A failure never leaves half a file, and a secret is
// never readable by others, even for a moment.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
