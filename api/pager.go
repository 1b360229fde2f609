package api

import (
	"fmt"
	"iter"
)

// ListBounds bound one walk of a list's pages: every list gwdash reads
// (batches and destinations, by a command or by the dashboard) is paged
// by a Pager with these bounds, so no server can make a walk endless or
// its rows unbounded in number or in bytes.
type ListBounds struct {
	// Pages is the most pages one walk fetches.
	Pages int
	// Rows is the most distinct rows one walk (or one view) holds.
	Rows int
	// Bytes is the most page bytes one walk reads in all: the walk stops
	// once the pages read add up to it, so what it holds is at most Bytes
	// plus one page.
	Bytes int64
	// PageBytes is the largest single page read.
	PageBytes int64
}

// The bounds every walk of a list uses (docs/security.md).
const (
	MaxListPages     = 200
	MaxListRows      = 20_000
	MaxListBytes     = 64 << 20
	MaxListPageBytes = 8 << 20
)

// DefaultListBounds are the bounds of every list walk.
var DefaultListBounds = ListBounds{Pages: MaxListPages, Rows: MaxListRows, Bytes: MaxListBytes, PageBytes: MaxListPageBytes}

// ListChangedError says the list changed while it was paged through:
// rows may have moved between pages, so some can be missing.
type ListChangedError struct{ Before, After int }

func (e *ListChangedError) Error() string {
	return fmt.Sprintf("the list changed while loading (total_count %d, then %d): some rows may be missing; load it again", e.Before, e.After)
}

// PagingStoppedError says a walk of pages stopped early, and why.
type PagingStoppedError struct {
	Reason string
	Pages  int
	Rows   int
}

func (e *PagingStoppedError) Error() string {
	pages, rows := "pages", "rows"
	if e.Pages == 1 {
		pages = "page"
	}
	if e.Rows == 1 {
		rows = "row"
	}
	return fmt.Sprintf("stopped after %d %s (%d %s): %s", e.Pages, pages, e.Rows, rows, e.Reason)
}

// Pager is the one walk of a list's pages, for a cursor list (batches:
// has_more and last_id) and an offset list (destinations: total_count).
// It drops rows already seen and says when to stop: at the end of the
// list, at a page that adds no new row, at a cursor sent again, and at
// its bounds (pages, rows, bytes). The commands and the dashboard page
// with it, so both stop for the same reasons and say them the same way.
type Pager struct {
	bounds ListBounds
	noun   string // "batch" or "destination", for the reasons
	seen   map[string]struct{}
	pages  int
	bytes  int64
	after  string // the cursor of the next page
	sent   map[string]bool
	total  int // the first page's total_count (-1: none yet)
	done   bool
	// Stopped says why the walk ended before the list did (nil while
	// walking, or when the list ended).
	Stopped *PagingStoppedError
	// Changed is set once total_count differs from the first page's.
	Changed *ListChangedError
}

// NewPager starts a walk with the default bounds.
func NewPager() *Pager { return NewPagerWith(DefaultListBounds) }

// NewPagerWith starts a walk with the given bounds (each at least 1).
func NewPagerWith(b ListBounds) *Pager {
	b.Pages, b.Rows = max(1, b.Pages), max(1, b.Rows)
	b.Bytes, b.PageBytes = max(1, b.Bytes), max(1, b.PageBytes)
	return &Pager{bounds: b, seen: map[string]struct{}{}, sent: map[string]bool{"": true}, total: -1}
}

// Bounds are the walk's bounds.
func (p *Pager) Bounds() ListBounds { return p.bounds }

// More reports whether another page should be fetched.
func (p *Pager) More() bool { return !p.done }

// After is the cursor of the next page of a cursor list ("" first).
func (p *Pager) After() string { return p.after }

// Offset is the offset of the next page of an offset list.
func (p *Pager) Offset() int { return len(p.seen) }

// Rows is how many distinct rows were seen.
func (p *Pager) Rows() int { return len(p.seen) }

// Pages is how many pages were folded in.
func (p *Pager) Pages() int { return p.pages }

// Err is what a caller reports when the walk ended early: the list's
// change when total_count moved (it explains a page without news better
// than the stop itself), else the stop; nil while walking or when the
// list ended as it began.
func (p *Pager) Err() error {
	switch {
	case !p.done:
		return nil
	case p.Changed != nil:
		return p.Changed
	case p.Stopped != nil:
		return p.Stopped
	}
	return nil
}

// Stop ends the walk with a reason (the caller's own bound reached).
func (p *Pager) Stop(reason string) {
	if p.done {
		return
	}
	p.done = true
	p.Stopped = &PagingStoppedError{Reason: reason, Pages: p.pages, Rows: len(p.seen)}
}

// Admit says how many of n new rows fit beside held rows a view already
// holds (from earlier walks); when fewer than n fit, the walk stops at the
// rows bound.
func (p *Pager) Admit(held, n int) int {
	room := max(0, p.bounds.Rows-held)
	if n > room {
		p.Stop(p.rowsCap())
		return room
	}
	return n
}

func (p *Pager) rowsCap() string {
	return fmt.Sprintf("the cap of %d rows was reached", p.bounds.Rows)
}

// Batches folds in a page of a cursor list of batches and returns the
// batches not seen before in this walk.
func (p *Pager) Batches(page *BatchPage) []Batch {
	p.noun = "batch"
	next := ""
	if page.LastID != nil {
		next = *page.LastID
	} else if n := len(page.Data); n > 0 {
		next = page.Data[n-1].ID
	}
	keep := p.fold(len(page.Data), func(i int) string { return page.Data[i].ID }, int64(len(page.Raw)), page.HasMore, next, -1)
	out := make([]Batch, 0, len(keep))
	for _, i := range keep {
		out = append(out, page.Data[i])
	}
	return out
}

// Destinations folds in a page of an offset list of destinations and
// returns the destinations not seen before in this walk.
func (p *Pager) Destinations(page *DestinationPage) []Destination {
	p.noun = "destination"
	keep := p.fold(len(page.Data), func(i int) string { return page.Data[i].ID }, int64(len(page.Raw)), false, "", page.TotalCount)
	out := make([]Destination, 0, len(keep))
	for _, i := range keep {
		out = append(out, page.Data[i])
	}
	return out
}

// fold takes one page in: n rows named by id, size bytes read; a cursor
// list says hasMore and the next cursor, an offset list its total (-1 for
// a cursor list). It returns the indexes of the rows to keep.
func (p *Pager) fold(n int, id func(int) string, size int64, hasMore bool, next string, total int) []int {
	if p.done {
		return nil
	}
	p.pages++
	p.bytes += size
	if total >= 0 {
		if p.total >= 0 && total != p.total && p.Changed == nil {
			p.Changed = &ListChangedError{Before: p.total, After: total}
		}
		if p.total < 0 {
			p.total = total
		}
	}
	var keep []int
	full := false
	for i := range n {
		k := id(i)
		if _, ok := p.seen[k]; ok {
			continue
		}
		if len(p.seen) >= p.bounds.Rows {
			full = true
			break
		}
		p.seen[k] = struct{}{}
		keep = append(keep, i)
	}
	if total >= 0 {
		hasMore = len(p.seen) < total
	}
	switch {
	case full:
		p.Stop(p.rowsCap())
	case !hasMore || n == 0:
		p.done = true
	case len(keep) == 0:
		p.Stop(fmt.Sprintf("page %d added no new %s (the same rows again)", p.pages, p.noun))
	case total < 0 && next == "":
		p.Stop("the server said there is more but sent no cursor")
	case total < 0 && p.sent[next]:
		p.Stop(fmt.Sprintf("the server sent a cursor it had sent before (%q)", clip(next, 40)))
	case len(p.seen) >= p.bounds.Rows:
		p.Stop(p.rowsCap())
	case p.pages >= p.bounds.Pages:
		p.Stop(fmt.Sprintf("the cap of %d pages was reached", p.bounds.Pages))
	case p.bytes >= p.bounds.Bytes:
		p.Stop(fmt.Sprintf("the pages read add up to %s, the cap", humanBytes(p.bytes)))
	}
	if total < 0 {
		p.sent[next] = true
		p.after = next
	}
	return keep
}

// clip shortens s to n runes for a message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// walk yields the items of each page next reads while the pager says
// there is more, and ends with the pager's error (a walk stopped early)
// or next's, whichever comes first. One walk serves every list.
func walk[T any](p *Pager, next func() ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for p.More() {
			items, err := next()
			if err != nil {
				yield(zero, err)
				return
			}
			for _, x := range items {
				if !yield(x, nil) {
					return
				}
			}
		}
		if err := p.Err(); err != nil {
			yield(zero, err)
		}
	}
}
