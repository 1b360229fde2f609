package ui

// The batches the home holds in full (settled ones already downloaded,
// so that opening one again downloads nothing), within a byte bound:
// the least recently used goes first.

import (
	"container/list"
	"unsafe"

	"github.com/gwdash/gwdash/api"
)

// heldBytes bounds the batches held in full (bodies and rows). A batch
// larger than the bound alone is not held: it is downloaded again when
// opened again.
const heldBytes = 256 << 20

// heldCache is an LRU of batch data by id, bounded by bytes.
type heldCache struct {
	max   int64
	size  int64
	order *list.List // front: most recently used
	byID  map[string]*list.Element
}

type heldEntry struct {
	id   string
	data *api.BatchData
	size int64
}

func newHeldCache(max int64) *heldCache {
	return &heldCache{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

// batchBytes is what a batch held costs: its body, its rows, its words.
func batchBytes(d *api.BatchData) int64 {
	n := int64(len(d.Raw)) + int64(len(d.Rows))*int64(unsafe.Sizeof(api.ResultRow{}))
	for _, w := range d.Words {
		n += int64(len(w)) + 16
	}
	return n + 512
}

// get returns a batch held, and makes it the most recently used.
func (h *heldCache) get(id string) *api.BatchData {
	e, ok := h.byID[id]
	if !ok {
		return nil
	}
	h.order.MoveToFront(e)
	return e.Value.(*heldEntry).data
}

// put holds a batch, letting the least recently used go past the bound.
func (h *heldCache) put(id string, d *api.BatchData) {
	h.remove(id)
	n := batchBytes(d)
	if n > h.max {
		return
	}
	h.byID[id] = h.order.PushFront(&heldEntry{id: id, data: d, size: n})
	h.size += n
	for h.size > h.max {
		h.remove(h.order.Back().Value.(*heldEntry).id)
	}
}

func (h *heldCache) remove(id string) {
	if e, ok := h.byID[id]; ok {
		h.size -= e.Value.(*heldEntry).size
		h.order.Remove(e)
		delete(h.byID, id)
	}
}
