//go:build !unix

package atomicfile

// noFollow is 0 where the system has no O_NOFOLLOW; Open still refuses
// what is not a regular file.
const noFollow = 0

func isLoop(error) bool { return false }
