// Package record is what gwdash remembers on this machine, per gateway
// (base URL): the batches opened or submitted here with their last known
// status, the destinations as they were last seen (to notice someone
// else's change before overwriting it), and the models used most
// recently. Everything in it came from a server and is shown through the
// sanitizing boundary.
//
// Each gateway has its own file (a shard), so that one server's data
// never slows a command on another. A shard is a journal: a header line,
// then one JSON line per change. A change that changes nothing (the same
// snapshot seen again) writes nothing; a change writes only its own line,
// never the whole record; the journal is compacted (rewritten whole,
// atomically) only when it holds more old lines than live ones. Every
// entry, every string and the number of gateways are bounded (see the
// constants), so no server can make the record large. Writes hold a lock,
// so that a command and a dashboard running at once lose nothing; files
// are 0600 and opened without following symlinks.
package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
	"github.com/gwdash/gwdash/internal/format"
)

// Bounds of the record: per gateway (entries, string lengths) and in
// total (gateways, bytes per shard). docs/performance.md lists them.
const (
	MaxBatches      = 1000
	MaxDestinations = 200
	MaxModels       = 12
	MaxGateways     = 64
	// MaxID is the longest id kept (a longer one is not remembered).
	MaxID = 256
	// MaxText is the longest model name, endpoint or status kept (longer
	// ones are cut).
	MaxText = 256
	// MaxDestinationBytes is the largest destination kept (as JSON).
	MaxDestinationBytes = 8 << 10
	// MaxShardBytes is the most read of one shard; a journal is
	// compacted before it reaches half of it.
	MaxShardBytes = 8 << 20
	// maxLegacyBytes is the largest record.json of earlier versions
	// that is carried over.
	maxLegacyBytes = 16 << 20
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
	// RetryOf is the batch this one retries the failed rows of, for a
	// retry submitted from this machine (its lineage).
	RetryOf string    `json:"retry_of,omitempty"`
	SeenAt  time.Time `json:"seen_at"`
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

// bounded cuts the strings of a batch to the record's bounds; an id too
// long to keep is refused.
func (r Batch) bounded() (Batch, bool) {
	if r.ID == "" || len(r.ID) > MaxID {
		return r, false
	}
	r.Status = api.BatchStatus(cut(string(r.Status)))
	r.Model, r.Endpoint = cut(r.Model), cut(r.Endpoint)
	if len(r.RetryOf) > MaxID {
		r.RetryOf = ""
	}
	return r, true
}

// sameAs reports whether two snapshots say the same to a later session:
// when it was last seen does not count, nor the progress of a batch
// still in flight in the same status (a later session polls it anyway);
// a new status, and the final counts and cost with it, do.
func (r Batch) sameAs(o Batch) bool {
	same := r.ID == o.ID && r.Status == o.Status && r.Model == o.Model && r.Endpoint == o.Endpoint &&
		r.CreatedAt == o.CreatedAt && eqTime(r.SubmittedAt, o.SubmittedAt) && r.RetryOf == o.RetryOf
	if !same || !r.Status.Terminal() && r.Status.Known() {
		return same
	}
	return r.Counts == o.Counts && eqPtr(r.Cost, o.Cost)
}

func eqPtr(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func eqTime(a, b *time.Time) bool { return a == nil && b == nil || a != nil && b != nil && a.Equal(*b) }

// cut bounds a string at MaxText bytes, on a rune boundary.
func cut(s string) string { return format.CutBytes(s, MaxText) }

// MaxWatched bounds the batches watched until they end (the dashboard's
// n), per gateway.
const MaxWatched = 20

// gateway is what is kept of one base URL.
type gateway struct {
	Batches      []Batch
	Destinations map[string]json.RawMessage
	destOrder    []string // oldest first, for the bound
	Models       []string
	// Watched are the batches watched until they end, oldest first.
	Watched []string
}

// op is one line of a shard: the header, or one change.
type op struct {
	Gateway    string          `json:"gateway,omitempty"`
	Batch      *Batch          `json:"batch,omitempty"`
	Forget     string          `json:"forget,omitempty"`
	DestID     string          `json:"dest_id,omitempty"`
	Dest       json.RawMessage `json:"dest,omitempty"`
	ForgetDest string          `json:"forget_dest,omitempty"`
	Models     []string        `json:"models,omitempty"`
	// Watch and Unwatch start and end the watch of a batch.
	Watch   string `json:"watch,omitempty"`
	Unwatch string `json:"unwatch,omitempty"`
	// UseModel puts one model first (kept as the resulting list).
	useModel string
}

// apply makes one change to g and reports whether it changed anything;
// o is left as the bounded change that was made (what a line says).
func (g *gateway) apply(o *op) bool {
	switch {
	case o.Batch != nil:
		b, ok := o.Batch.bounded()
		if !ok {
			return false
		}
		o.Batch = &b
		i := slices.IndexFunc(g.Batches, func(x Batch) bool { return x.ID == b.ID })
		if i >= 0 {
			old := g.Batches[i]
			if b.SubmittedAt == nil {
				b.SubmittedAt = old.SubmittedAt
			}
			if b.RetryOf == "" { // a snapshot does not know its lineage
				b.RetryOf = old.RetryOf
			}
			if b.Model == "" { // a snapshot without it does not erase it
				b.Model = old.Model
			}
			if b.Endpoint == "" {
				b.Endpoint = old.Endpoint
			}
			if g.Batches[i].sameAs(b) {
				g.Batches[i] = b // known here; not worth a write
				return false
			}
			g.Batches[i] = b
			return true
		}
		g.Batches = append(g.Batches, b)
		if len(g.Batches) > MaxBatches {
			// the one seen longest ago goes
			oldest := 0
			for j, x := range g.Batches {
				if x.SeenAt.Before(g.Batches[oldest].SeenAt) {
					oldest = j
				}
			}
			g.Batches = slices.Delete(g.Batches, oldest, oldest+1)
		}
		return true
	case o.Forget != "":
		n := len(g.Batches)
		g.Batches = slices.DeleteFunc(g.Batches, func(b Batch) bool { return b.ID == o.Forget })
		return len(g.Batches) != n
	case o.DestID != "":
		if len(o.DestID) > MaxID || len(o.Dest) > MaxDestinationBytes || len(o.Dest) == 0 {
			return false
		}
		if g.Destinations == nil {
			g.Destinations = map[string]json.RawMessage{}
		}
		if old, ok := g.Destinations[o.DestID]; ok {
			if bytes.Equal(old, o.Dest) {
				return false
			}
		} else {
			g.destOrder = append(g.destOrder, o.DestID)
		}
		g.Destinations[o.DestID] = o.Dest
		for len(g.Destinations) > MaxDestinations && len(g.destOrder) > 0 {
			delete(g.Destinations, g.destOrder[0])
			g.destOrder = g.destOrder[1:]
		}
		return true
	case o.ForgetDest != "":
		if _, ok := g.Destinations[o.ForgetDest]; !ok {
			return false
		}
		delete(g.Destinations, o.ForgetDest)
		g.destOrder = slices.DeleteFunc(g.destOrder, func(id string) bool { return id == o.ForgetDest })
		return true
	case o.Models != nil:
		var ms []string
		for _, m := range o.Models {
			if m != "" && len(m) <= MaxText && len(ms) < MaxModels && !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
		o.Models = ms
		if slices.Equal(ms, g.Models) {
			return false
		}
		g.Models = ms
		return true
	case o.Watch != "":
		if len(o.Watch) > MaxID || slices.Contains(g.Watched, o.Watch) || len(g.Watched) >= MaxWatched {
			return false
		}
		g.Watched = append(g.Watched, o.Watch)
		return true
	case o.Unwatch != "":
		n := len(g.Watched)
		g.Watched = slices.DeleteFunc(g.Watched, func(id string) bool { return id == o.Unwatch })
		return len(g.Watched) != n
	}
	return false
}

// resolve turns a relative change (use a model) into the line written.
func (g *gateway) resolve(o op) op {
	if o.useModel == "" {
		return o
	}
	out := []string{o.useModel}
	for _, m := range g.Models {
		if m != o.useModel && len(out) < MaxModels {
			out = append(out, m)
		}
	}
	return op{Models: out}
}

// snapshot is the lines that rebuild g.
func (g *gateway) snapshot(base string) []op {
	ops := []op{{Gateway: base}}
	for i := range g.Batches {
		ops = append(ops, op{Batch: &g.Batches[i]})
	}
	for _, id := range g.destOrder {
		ops = append(ops, op{DestID: id, Dest: g.Destinations[id]})
	}
	if len(g.Models) > 0 {
		ops = append(ops, op{Models: g.Models})
	}
	for _, id := range g.Watched {
		ops = append(ops, op{Watch: id})
	}
	return ops
}

func (g *gateway) clone() *gateway {
	c := &gateway{Batches: slices.Clone(g.Batches), Models: slices.Clone(g.Models), destOrder: slices.Clone(g.destOrder), Watched: slices.Clone(g.Watched)}
	if g.Destinations != nil {
		c.Destinations = make(map[string]json.RawMessage, len(g.Destinations))
		for k, v := range g.Destinations {
			c.Destinations[k] = v
		}
	}
	return c
}

// shard is one gateway's file as this process knows it: disk is what
// the file says (as of size and mod), view that plus the changes held.
type shard struct {
	disk, view *gateway
	loaded     bool
	size       int64
	mod        time.Time
	lines      int  // lines in the file
	pending    []op // changes held until Flush
}

// Store is the record. A nil Store (no state directory) remembers
// nothing and answers empty. A Store is safe for concurrent use.
type Store struct {
	dir    string
	mu     sync.Mutex
	shards map[string]*shard
	held   int
	// written counts the bytes written (appends and compactions), for
	// tests and the soak benchmark.
	written  int64
	migrated bool
}

// Open returns the store in dir, or nil when dir is "".
func Open(dir string) *Store {
	if dir == "" {
		return nil
	}
	return &Store{dir: dir, shards: map[string]*shard{}}
}

// Path is the folder of the shards.
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return filepath.Join(s.dir, "record")
}

// Key names a gateway in the record: its base URL without a trailing
// slash, so that "…/api/v1" and "…/api/v1/" share one shard. Every method
// of Store applies it; callers pass the base URL as configured.
func Key(base string) string { return strings.TrimRight(base, "/") }

// ShardPath is the file of one gateway.
func (s *Store) ShardPath(base string) string {
	if s == nil {
		return ""
	}
	base = Key(base)
	sum := sha256.Sum256([]byte(base))
	return filepath.Join(s.Path(), hex.EncodeToString(sum[:12])+".jsonl")
}

// Written is how many bytes this store has written so far.
func (s *Store) Written() int64 {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

func (s *Store) shard(base string) *shard {
	sh := s.shards[base]
	if sh == nil {
		sh = &shard{disk: &gateway{}, view: &gateway{}}
		s.shards[base] = sh
	}
	return sh
}

// load reads a shard unless what is known is current; with fresh unset,
// a shard read once is trusted (no file is touched).
func (s *Store) load(base string, fresh bool) *shard {
	base = Key(base)
	sh := s.shard(base)
	if sh.loaded && !fresh {
		return sh
	}
	s.migrate()
	path := s.ShardPath(base)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		sh.loaded = true
		return sh
	}
	if sh.loaded && fi.Size() == sh.size && fi.ModTime().Equal(sh.mod) {
		return sh
	}
	g, lines := readShard(path, base)
	sh.disk, sh.lines, sh.size, sh.mod, sh.loaded = g, lines, fi.Size(), fi.ModTime(), true
	sh.view = g.clone()
	for _, o := range sh.pending { // held changes stay on top
		o := sh.view.resolve(o)
		sh.view.apply(&o)
	}
	return sh
}

// readShard replays a shard's lines (at most MaxShardBytes; a broken
// line, such as a torn last one, is skipped). lines is -1 for a file that
// is not this gateway's.
func readShard(path, base string) (*gateway, int) {
	g := &gateway{}
	f, err := openRead(path)
	if err != nil {
		return g, 0
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxShardBytes))
	if err != nil {
		return g, 0
	}
	lines := 0
	for i, ln := range bytes.Split(b, []byte{'\n'}) {
		if len(ln) == 0 {
			continue
		}
		lines++
		var o op
		if json.Unmarshal(ln, &o) != nil {
			continue
		}
		if i == 0 {
			if o.Gateway != base {
				return &gateway{}, -1 // not this gateway's file: ignored, rewritten at the next write
			}
			continue
		}
		g.apply(&o)
	}
	return g, lines
}

// Hold keeps writes in memory until the matching Flush: a dashboard
// gathers many changes into one write.
func (s *Store) Hold() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.held++
	s.mu.Unlock()
}

// Flush ends a Hold and writes what changed (nothing when nothing did).
func (s *Store) Flush() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held > 0 {
		s.held--
	}
	if s.held > 0 {
		return nil
	}
	var errs []error
	for base, sh := range s.shards {
		if len(sh.pending) > 0 {
			errs = append(errs, s.write(base, sh))
		}
	}
	return errors.Join(errs...)
}

// change records one change: at once, or at Flush while held.
func (s *Store) change(base string, o op) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	base = Key(base)
	sh := s.load(base, false)
	// the latest change of a batch or destination replaces one held
	if i := slices.IndexFunc(sh.pending, func(p op) bool { return sameKey(p, o) }); i >= 0 {
		if o.Batch != nil && o.Batch.SubmittedAt == nil && sh.pending[i].Batch.SubmittedAt != nil {
			b := *o.Batch // a later snapshot keeps the submission time
			b.SubmittedAt = sh.pending[i].Batch.SubmittedAt
			o.Batch = &b
		}
		if o.Batch != nil && o.Batch.RetryOf == "" && sh.pending[i].Batch.RetryOf != "" {
			b := *o.Batch // and the lineage
			b.RetryOf = sh.pending[i].Batch.RetryOf
			o.Batch = &b
		}
		sh.pending = slices.Delete(sh.pending, i, i+1)
	}
	sh.pending = append(sh.pending, o)
	ro := sh.view.resolve(o)
	sh.view.apply(&ro)
	if s.held > 0 {
		return nil
	}
	return s.write(base, sh)
}

func sameKey(a, b op) bool {
	switch {
	case a.Batch != nil && b.Batch != nil:
		return a.Batch.ID == b.Batch.ID
	case a.DestID != "" && b.DestID != "":
		return a.DestID == b.DestID
	}
	return false
}

// write appends the held changes that change the file, under the lock;
// a journal with more old lines than live ones is compacted.
func (s *Store) write(base string, sh *shard) error {
	pending := sh.pending
	sh.pending = nil
	path := s.ShardPath(base)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	// What the file says now (another process may have written).
	g, lines := &gateway{}, 0
	fi, statErr := os.Lstat(path)
	exists := statErr == nil && fi.Mode().IsRegular()
	if exists {
		if sh.loaded && fi.Size() == sh.size && fi.ModTime().Equal(sh.mod) {
			g, lines = sh.disk, sh.lines
		} else {
			g, lines = readShard(path, base)
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	changed := 0
	for _, o := range pending {
		o = g.resolve(o)
		if g.apply(&o) {
			enc.Encode(o)
			changed++
		}
	}
	sh.disk, sh.view, sh.loaded = g, g.clone(), true
	if changed == 0 {
		return nil
	}
	live := len(g.Batches) + len(g.Destinations) + 2
	if !exists || lines < 0 || lines+changed > 2*live+64 || fi.Size()+int64(out.Len()) > MaxShardBytes/2 {
		err = s.compact(path, base, g, sh)
	} else {
		err = s.appendLines(path, out.Bytes(), sh, lines+changed)
	}
	if !exists && err == nil {
		s.boundGateways(path)
	}
	return err
}

func (s *Store) appendLines(path string, b []byte, sh *shard, lines int) error {
	f, err := openAppend(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	s.written += int64(len(b))
	s.stamp(path, sh, lines)
	return nil
}

func (s *Store) compact(path, base string, g *gateway, sh *shard) error {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	ops := g.snapshot(base)
	for _, o := range ops {
		enc.Encode(o)
	}
	if err := atomicfile.Write(path, out.Bytes(), 0o600); err != nil {
		return err
	}
	s.written += int64(out.Len())
	s.stamp(path, sh, len(ops))
	return nil
}

func (s *Store) stamp(path string, sh *shard, lines int) {
	if fi, err := os.Lstat(path); err == nil {
		sh.size, sh.mod, sh.lines = fi.Size(), fi.ModTime(), lines
	}
}

// boundGateways keeps at most MaxGateways shards: the least recently
// written go.
func (s *Store) boundGateways(keep string) {
	entries, err := os.ReadDir(filepath.Dir(keep))
	if err != nil {
		return
	}
	type f struct {
		path string
		mod  time.Time
	}
	var fs []f
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if info, err := e.Info(); err == nil {
			fs = append(fs, f{filepath.Join(filepath.Dir(keep), e.Name()), info.ModTime()})
		}
	}
	if len(fs) <= MaxGateways {
		return
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].mod.Before(fs[j].mod) })
	for _, x := range fs[:len(fs)-MaxGateways] {
		if x.path != keep {
			os.Remove(x.path)
			os.Remove(x.path + ".lock")
		}
	}
}

// migrate carries a record.json of an earlier version over into shards,
// once (a very large one is set aside unread).
func (s *Store) migrate() {
	if s.migrated {
		return
	}
	s.migrated = true
	old := filepath.Join(s.dir, "record.json")
	fi, err := os.Lstat(old)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if fi.Size() > maxLegacyBytes {
		os.Rename(old, old+".too-large")
		return
	}
	f, err := openRead(old)
	if err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, maxLegacyBytes))
	f.Close()
	if err != nil {
		return
	}
	var legacy struct {
		Gateways map[string]*struct {
			Batches      []Batch                    `json:"batches"`
			Destinations map[string]json.RawMessage `json:"destinations"`
			Models       []string                   `json:"models"`
		} `json:"gateways"`
	}
	if json.Unmarshal(b, &legacy) == nil {
		n := 0
		for base, lg := range legacy.Gateways {
			if lg == nil || n >= MaxGateways {
				continue
			}
			n++
			path := s.ShardPath(base)
			if _, err := os.Lstat(path); err == nil {
				continue
			}
			g := &gateway{}
			for i := range lg.Batches {
				g.apply(&op{Batch: &lg.Batches[i]})
			}
			for id, raw := range lg.Destinations {
				g.apply(&op{DestID: id, Dest: raw})
			}
			g.apply(&op{Models: lg.Models})
			if os.MkdirAll(filepath.Dir(path), 0o700) == nil {
				s.compact(path, base, g, &shard{})
			}
		}
	}
	os.Rename(old, old+".migrated")
}

// view returns what is known of a gateway (fresh: read again if the file
// changed), under the lock of the store; callers copy what they return.
func (s *Store) view(base string, fresh bool) *gateway {
	return s.load(base, fresh).view
}

// Batches are the batches remembered for a gateway, newest first. The
// file is read again if another process changed it.
func (s *Store) Batches(base string) []Batch {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	out := slices.Clone(s.view(base, true).Batches)
	s.mu.Unlock()
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

// Batch returns one remembered batch (from memory once the gateway was
// read).
func (s *Store) Batch(base, id string) (Batch, bool) {
	if s == nil {
		return Batch{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.view(base, false).Batches {
		if b.ID == id {
			return b, true
		}
	}
	return Batch{}, false
}

// Remember records snapshots of batches (keeping when each was submitted
// from here). A snapshot that says what the record says already writes
// nothing.
func (s *Store) Remember(base string, bs ...Batch) error {
	var errs []error
	s.Hold()
	for i := range bs {
		b := bs[i]
		errs = append(errs, s.change(base, op{Batch: &b}))
	}
	errs = append(errs, s.Flush())
	return errors.Join(errs...)
}

// Forget drops a batch (deleted).
func (s *Store) Forget(base, id string) error { return s.change(base, op{Forget: id}) }

// SubmittedWithin reports whether a batch was submitted from here within
// d of now: only then is its first 404 worth retrying.
func (s *Store) SubmittedWithin(base, id string, d time.Duration, now time.Time) bool {
	b, ok := s.Batch(base, id)
	return ok && b.SubmittedAt != nil && now.Sub(*b.SubmittedAt) < d && now.Sub(*b.SubmittedAt) >= -time.Minute
}

// Destination returns a destination as last seen from here.
func (s *Store) Destination(base, id string) (*api.Destination, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	raw, ok := s.view(base, true).Destinations[id]
	s.mu.Unlock()
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
// them: secrets masked). One larger than MaxDestinationBytes is not kept.
func (s *Store) SeeDestinations(base string, ds ...api.Destination) error {
	var errs []error
	s.Hold()
	for _, d := range ds {
		if b, err := json.Marshal(d); err == nil && d.ID != "" {
			errs = append(errs, s.change(base, op{DestID: d.ID, Dest: b}))
		}
	}
	errs = append(errs, s.Flush())
	return errors.Join(errs...)
}

// ForgetDestination drops a destination (deleted).
func (s *Store) ForgetDestination(base, id string) error {
	return s.change(base, op{ForgetDest: id})
}

// Models are the models used most recently, newest first (from memory
// once the gateway was read).
func (s *Store) Models(base string) []string {
	return s.listOf(base, func(g *gateway) []string { return g.Models })
}

// listOf is a copy of one list of base's view (Models, Watched), read
// under the lock.
func (s *Store) listOf(base string, list func(*gateway) []string) []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(list(s.view(base, false)))
}

// UseModel puts a model first in the recent list.
func (s *Store) UseModel(base, model string) error {
	if model == "" || len(model) > MaxText {
		return nil
	}
	return s.change(base, op{useModel: model})
}

// Watched are the batches watched until they end (from memory once the
// gateway was read), oldest first.
func (s *Store) Watched(base string) []string {
	return s.listOf(base, func(g *gateway) []string { return g.Watched })
}

// Watch remembers that a batch is watched until it ends (MaxWatched at
// most).
func (s *Store) Watch(base, id string) error { return s.change(base, op{Watch: id}) }

// Unwatch ends the watch of a batch.
func (s *Store) Unwatch(base, id string) error { return s.change(base, op{Unwatch: id}) }

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

// openRead and openAppend open a shard without following a symbolic link
// (atomicfile.Open: the one rule for every state file).
func openRead(path string) (*os.File, error) { return atomicfile.Open(path, os.O_RDONLY, 0) }

func openAppend(path string) (*os.File, error) {
	return atomicfile.Open(path, os.O_WRONLY|os.O_APPEND, 0o600)
}
