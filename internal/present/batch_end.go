package present

import (
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// BatchEnded is the one line that tells a batch ended, for a
// notification: "batch-… completed · 3 failed · $0.42" (the cost only
// once the batch has usage). Plain text: the notifier makes it inert.
func BatchEnded(b *api.Batch) string {
	s := b.ID + " " + Status(b.Status) + " · " + format.Int(b.RequestCounts.Failed) + " failed"
	if b.Usage != nil && b.Usage.Cost != nil {
		s += " · " + format.Cost(*b.Usage.Cost)
	}
	return s
}
