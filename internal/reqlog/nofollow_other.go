//go:build !unix

package reqlog

// noFollow is not offered here; Open checks for a link before creating.
const noFollow = 0
