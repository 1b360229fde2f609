// Package record is what gwdash remembers on this machine, per gateway
// (base URL): the batches opened or submitted here with their last known
// status, the destinations as they were last seen (to notice someone
// else's change before overwriting it), and the models used most
// recently. It lives in the state directory in one file of mode 0600,
// written atomically under a lock, so that a command and a dashboard
// running at once do not lose each other's writes. Everything in it came
// from a server and is shown through the sanitizing boundary.
package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
)

// Limits of what is kept per gateway.
const (
	maxBatches      = 1000
	maxDestinations = 500
	maxModels       = 12
)

// Batch is a batch as last seen from this machine.
type Batch struct {
	ID        string            `json:"id"`
	Status    api.BatchStatus   `json:"status"`
	Model     string            `json:"model"`
	Endpoint  string            `json:"endpoint"`
	Counts    api.RequestCounts `json:"request_counts"`
	Cost      *float64          `json:"cost,omitempty"`
	CreatedAt int64             `json:"created_at"`
	// SubmittedAt is set for a batch submitted from this machine.
	SubmittedAt *time.Time `json:"submitted_at,omitempty"`
	SeenAt      time.Time  `json:"seen_at"`
}

// FromAPI records what a snapshot says.
func FromAPI(b *api.Batch, now time.Time) Batch {
	r := Batch{ID: b.ID, Status: b.Status, Model: b.Model, Endpoint: b.Endpoint, Counts: b.RequestCounts, CreatedAt: b.CreatedAt, SeenAt: now}
	if b.Usage != nil {
		r.Cost = b.Usage.Cost
	}
	return r
}

// AsBatch turns a record back into a batch's metadata (results null).
func (r Batch) AsBatch() api.Batch {
	b := api.Batch{ID: r.ID, Object: "batch", Status: r.Status, Model: r.Model, Endpoint: r.Endpoint, RequestCounts: r.Counts, CreatedAt: r.CreatedAt, CompletionWindow: "24h"}
	if r.Cost != nil {
		b.Usage = &api.BatchUsage{Usage: api.Usage{Cost: r.Cost}}
	}
	return b
}

// gateway is what is kept of one base URL.
type gateway struct {
	Batches      []Batch                    `json:"batches"`
	Destinations map[string]json.RawMessage `json:"destinations,omitempty"`
	Models       []string                   `json:"models,omitempty"`
}

type file struct {
	Gateways map[string]*gateway `json:"gateways"`
}

// Store is the record file. A nil Store (no state directory) remembers
// nothing and answers empty.
type Store struct {
	path string
	mu   sync.Mutex
}

// Open returns the store in dir, or nil when dir is "".
func Open(dir string) *Store {
	if dir == "" {
		return nil
	}
	return &Store{path: filepath.Join(dir, "record.json")}
}

// Path is the file's path.
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

func (s *Store) read() *file {
	f := &file{Gateways: map[string]*gateway{}}
	// never through a symbolic link; larger than any record gwdash writes
	b, err := atomicfile.ReadFile(s.path, 64<<20)
	if err != nil {
		return f
	}
	if json.Unmarshal(b, f) != nil || f.Gateways == nil {
		f.Gateways = map[string]*gateway{}
	}
	return f
}

// update reads, changes and writes the file under the lock.
func (s *Store) update(base string, change func(g *gateway)) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f := s.read()
	g := f.Gateways[base]
	if g == nil {
		g = &gateway{}
		f.Gateways[base] = g
	}
	change(g)
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path, b, 0o600)
}

func (s *Store) view(base string) *gateway {
	if s == nil {
		return &gateway{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.read().Gateways[base]; g != nil {
		return g
	}
	return &gateway{}
}

// Batches are the batches remembered for a gateway, newest first.
func (s *Store) Batches(base string) []Batch {
	out := s.view(base).Batches
	sort.SliceStable(out, func(i, j int) bool { return newer(out[i], out[j]) })
	return out
}

func newer(a, b Batch) bool {
	ta, tb := api.UnixAuto(a.CreatedAt), api.UnixAuto(b.CreatedAt)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.ID > b.ID
}

// Batch returns one remembered batch.
func (s *Store) Batch(base, id string) (Batch, bool) {
	for _, b := range s.view(base).Batches {
		if b.ID == id {
			return b, true
		}
	}
	return Batch{}, false
}

// Remember records snapshots of batches (keeping when each was submitted
// from here).
func (s *Store) Remember(base string, bs ...Batch) error {
	return s.update(base, func(g *gateway) {
		for _, b := range bs {
			if b.ID == "" {
				continue
			}
			i := slices.IndexFunc(g.Batches, func(x Batch) bool { return x.ID == b.ID })
			if i >= 0 {
				if b.SubmittedAt == nil {
					b.SubmittedAt = g.Batches[i].SubmittedAt
				}
				g.Batches[i] = b
			} else {
				g.Batches = append(g.Batches, b)
			}
		}
		if len(g.Batches) > maxBatches {
			sort.SliceStable(g.Batches, func(i, j int) bool { return g.Batches[i].SeenAt.After(g.Batches[j].SeenAt) })
			g.Batches = g.Batches[:maxBatches]
		}
	})
}

// Forget drops a batch (deleted).
func (s *Store) Forget(base, id string) error {
	return s.update(base, func(g *gateway) {
		g.Batches = slices.DeleteFunc(g.Batches, func(b Batch) bool { return b.ID == id })
	})
}

// SubmittedWithin reports whether a batch was submitted from here within
// d of now: only then is its first 404 worth retrying.
func (s *Store) SubmittedWithin(base, id string, d time.Duration, now time.Time) bool {
	b, ok := s.Batch(base, id)
	return ok && b.SubmittedAt != nil && now.Sub(*b.SubmittedAt) < d && now.Sub(*b.SubmittedAt) >= -time.Minute
}

// Destination returns a destination as last seen from here.
func (s *Store) Destination(base, id string) (*api.Destination, bool) {
	raw, ok := s.view(base).Destinations[id]
	if !ok {
		return nil, false
	}
	var d api.Destination
	if json.Unmarshal(raw, &d) != nil {
		return nil, false
	}
	return &d, true
}

// SeeDestinations records destinations as seen now (as the server sent
// them: secrets masked).
func (s *Store) SeeDestinations(base string, ds ...api.Destination) error {
	return s.update(base, func(g *gateway) {
		if g.Destinations == nil {
			g.Destinations = map[string]json.RawMessage{}
		}
		for _, d := range ds {
			if b, err := json.Marshal(d); err == nil && d.ID != "" {
				g.Destinations[d.ID] = b
			}
		}
		for len(g.Destinations) > maxDestinations {
			for k := range g.Destinations { // drop any: a bound, not an order
				delete(g.Destinations, k)
				break
			}
		}
	})
}

// ForgetDestination drops a destination (deleted).
func (s *Store) ForgetDestination(base, id string) error {
	return s.update(base, func(g *gateway) { delete(g.Destinations, id) })
}

// Models are the models used most recently, newest first.
func (s *Store) Models(base string) []string { return s.view(base).Models }

// UseModel puts a model first in the recent list.
func (s *Store) UseModel(base, model string) error {
	return s.update(base, func(g *gateway) {
		out := []string{model}
		for _, m := range g.Models {
			if m != model && len(out) < maxModels {
				out = append(out, m)
			}
		}
		g.Models = out
	})
}

// Merge joins a server's list of batches with the record: every batch of
// the server as it says, then the remembered ones it did not list, newest
// first. fromRecord tells which ones came only from the record.
func Merge(server []api.Batch, local []Batch) (out []api.Batch, fromRecord map[string]bool) {
	fromRecord = map[string]bool{}
	seen := map[string]bool{}
	for _, b := range server {
		seen[b.ID] = true
		out = append(out, b)
	}
	for _, r := range local {
		if !seen[r.ID] {
			out = append(out, r.AsBatch())
			fromRecord[r.ID] = true
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := out[i].CreatedTime(), out[j].CreatedTime()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return out[i].ID > out[j].ID
	})
	return out, fromRecord
}
