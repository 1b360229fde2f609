package reqlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/gwdash/gwdash/api"
)

// KeptBatch is what the log kept of a batch it saw submitted: the
// endpoint, the model and the requests (custom_id and body), as many as
// MaxRequestBytes held. Keys are never among them: a request's key
// travels in a header, never in a body.
type KeptBatch struct {
	// Row is the log row it was read from.
	Row      int64
	Endpoint string
	Model    string
	Requests []api.BatchRequest
	// Total is how many requests the batch had; Truncated is true when
	// the row kept fewer (the rest did not fit MaxRequestBytes).
	Total     int64
	Truncated bool
}

// ErrNotKept is a batch whose requests the log does not hold: it was not
// submitted from this machine, the log was off, or its row was pruned.
type ErrNotKept struct{ BatchID string }

func (e *ErrNotKept) Error() string {
	return fmt.Sprintf("the request log holds no requests of batch %s", e.BatchID)
}

// KeptBatch reads the requests kept for a submitted batch (the newest
// row of kind batch with that id); *ErrNotKept when there is none.
func (db *DB) KeptBatch(ctx context.Context, batchID string) (*KeptBatch, error) {
	if batchID == "" {
		return nil, &ErrNotKept{BatchID: batchID}
	}
	// kind first: a response row is passed over on its first page,
	// without reading its long text to reach batch_id.
	var row int64
	var request string
	var total sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT id, request, batch_requests FROM requests WHERE kind = ? AND batch_id = ? ORDER BY id DESC LIMIT 1`,
		KindBatch, batchID).Scan(&row, &request, &total)
	if err == sql.ErrNoRows {
		return nil, &ErrNotKept{BatchID: batchID}
	}
	if err != nil {
		return nil, err
	}
	var stored struct {
		Endpoint  string             `json:"endpoint"`
		Model     string             `json:"model"`
		Requests  []api.BatchRequest `json:"requests"`
		Truncated bool               `json:"truncated"`
	}
	if request == "" || json.Unmarshal([]byte(request), &stored) != nil {
		return nil, &ErrNotKept{BatchID: batchID}
	}
	k := &KeptBatch{Row: row, Endpoint: stored.Endpoint, Model: stored.Model, Requests: stored.Requests, Truncated: stored.Truncated,
		Total: int64(len(stored.Requests))}
	if total.Valid && total.Int64 > k.Total {
		k.Total, k.Truncated = total.Int64, true
	}
	return k, nil
}
