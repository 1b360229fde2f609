package ui

import (
	"github.com/gwdash/gwdash/api"
)

// Status filters of the home, and the one rule of what each keeps.
// "failed" is the status the server calls failed, the same set that
// `batch list --status failed` asks the server for; a batch that completed
// with some failed requests is "with failed requests", not "failed".
const (
	homeAll = iota
	homeInFlight
	homeSettled
	homeFailed
	homeWithFailures
)

var homeFilterNames = []string{"all", "in flight", "settled", "failed", "with failed requests"}

// homeFilterKeeps reports whether the status filter f keeps batch b.
func homeFilterKeeps(f int, b *api.Batch) bool {
	switch f {
	case homeInFlight:
		return !b.Status.Terminal()
	case homeSettled:
		return b.Status.Terminal()
	case homeFailed:
		return b.Status == api.BatchFailed
	case homeWithFailures:
		return b.RequestCounts.Failed > 0
	}
	return true
}
