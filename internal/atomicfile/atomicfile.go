// Package atomicfile writes a file whole or not at all: through a
// temporary file beside it, given its mode before any byte, then renamed
// over the target. A failure never leaves half a file, and a secret is
// never readable by others, even for a moment.
//
// It is also how gwdash opens its own state files (the local record, its
// lock, the models cache): never through a symbolic link, so that a link
// planted where a state file goes cannot make gwdash read or write
// another file.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm. The temporary file is
// created exclusively (never through a link), and the rename replaces a
// link at path rather than writing where it points.
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
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ErrLink is a state file that is a symbolic link (or not a regular
// file): refused.
var ErrLink = errors.New("is a symbolic link or not a regular file; gwdash does not follow links for its state files")

// Open opens a state file with flag and perm without following a
// symbolic link at path (O_NOFOLLOW where the system has it), and refuses
// anything but a regular file.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		if isLoop(err) {
			return nil, fmt.Errorf("%s %w", path, ErrLink)
		}
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s %w", path, ErrLink)
	}
	return f, nil
}

// ReadFile reads a state file of at most max bytes through Open.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not read", path, max)
	}
	return b, nil
}
