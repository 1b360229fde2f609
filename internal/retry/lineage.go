package retry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
)

// MaxAttempts bounds the retries of one lineage that are followed.
const MaxAttempts = 32

// Descendants are the retries of root made from this machine, and their
// retries in turn (at most MaxAttempts), oldest first by the created
// time the record knows (Effective orders them again by their own).
func Descendants(recs []record.Batch, root string) []record.Batch {
	children := map[string][]record.Batch{}
	for _, r := range recs {
		if r.RetryOf != "" && r.ID != r.RetryOf {
			children[r.RetryOf] = append(children[r.RetryOf], r)
		}
	}
	var out []record.Batch
	seen := map[string]bool{root: true}
	queue := []string{root}
	for len(queue) > 0 && len(out) < MaxAttempts {
		id := queue[0]
		queue = queue[1:]
		for _, c := range children[id] {
			if seen[c.ID] || len(out) >= MaxAttempts {
				continue
			}
			seen[c.ID] = true
			out = append(out, c)
			queue = append(queue, c.ID)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := api.UnixAuto(out[i].CreatedAt), api.UnixAuto(out[j].CreatedAt)
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Counts are the effective results' counts: Succeeded + Failed = Total,
// the parent's rows.
type Counts struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// FromRetries is how many rows a later attempt answered; Recovered
	// how many failed in the parent and succeeded later.
	FromRetries int `json:"from_retries"`
	Recovered   int `json:"recovered"`
	// Attempts is how many settled retries were read; Pending how many
	// are still running (their rows count as the attempt before).
	Attempts int `json:"attempts"`
	Pending  int `json:"pending"`
}

// Effective is the parent's results with each custom_id's latest attempt
// taken from its retries (in any order: the latest created wins; a retry
// without results counts as pending). The result is a batch body of the parent's id with
// those results, read back as BatchData, so that it is shown, filtered
// and exported as any batch is.
func Effective(parent *api.BatchData, later []*api.BatchData) (*api.BatchData, Counts, error) {
	type at struct {
		d *api.BatchData
		i int
	}
	later = slices.Clone(later)
	sort.SliceStable(later, func(i, j int) bool {
		if later[i] == nil || later[j] == nil {
			return later[j] == nil && later[i] != nil
		}
		ti, tj := later[i].Batch.CreatedTime(), later[j].Batch.CreatedTime()
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return later[i].Batch.ID < later[j].Batch.ID
	})
	c := Counts{Total: len(parent.Rows)}
	own := make(map[string]struct{}, len(parent.Rows))
	for i := range parent.Rows {
		own[parent.CustomID(i)] = struct{}{}
	}
	latest := map[string]at{} // a row's latest retry
	for _, d := range later {
		if d == nil || d.Rows == nil || !d.Batch.Status.Terminal() {
			c.Pending++
			continue
		}
		c.Attempts++
		for i := range d.Rows {
			id := d.CustomID(i)
			if _, ok := own[id]; ok { // rows the parent does not have are not its results
				latest[id] = at{d, i}
			}
		}
	}
	var results bytes.Buffer
	results.WriteByte('[')
	for i := range parent.Rows {
		a, retried := latest[parent.CustomID(i)]
		if !retried {
			a = at{parent, i}
		}
		if i > 0 {
			results.WriteByte(',')
		}
		results.Write(a.d.ItemBytes(a.i))
		failed := a.d.Rows[a.i].Failed
		if failed {
			c.Failed++
		} else {
			c.Succeeded++
		}
		if a.d != parent {
			c.FromRetries++
			if parent.Rows[i].Failed && !failed {
				c.Recovered++
			}
		}
	}
	results.WriteByte(']')
	pb := parent.Batch
	meta := map[string]any{
		"id": pb.ID, "object": "batch", "endpoint": pb.Endpoint, "model": pb.Model, "completion_window": pb.CompletionWindow,
		"status": pb.Status, "created_at": pb.CreatedAt, "finalized_at": pb.FinalizedAt,
		"request_counts": api.RequestCounts{Total: c.Total, Completed: c.Succeeded, Failed: c.Failed},
		"usage":          nil, "error": pb.Error, "results": json.RawMessage(results.Bytes()),
	}
	body, err := json.Marshal(meta)
	if err != nil {
		return nil, c, err
	}
	d, err := api.ReadBatchData(body)
	if err != nil {
		return nil, c, fmt.Errorf("the effective results cannot be read back: %w", err)
	}
	return d, c, nil
}

// Summary is "40 rows · 38 succeeded · 2 failed · 5 answered by 1 retry
// (3 recovered)".
func (c Counts) Summary() string {
	s := fmt.Sprintf("%d rows · %d succeeded · %d failed", c.Total, c.Succeeded, c.Failed)
	if c.Attempts > 0 {
		word := "retries"
		if c.Attempts == 1 {
			word = "retry"
		}
		s += fmt.Sprintf(" · %d answered by %d %s (%d recovered)", c.FromRetries, c.Attempts, word, c.Recovered)
	} else {
		s += " · no settled retry yet"
	}
	if c.Pending > 0 {
		s += fmt.Sprintf(" · %d still running", c.Pending)
	}
	return s
}
