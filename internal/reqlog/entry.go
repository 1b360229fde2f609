package reqlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"github.com/gwdash/gwdash/api"
	"time"
)

// Entry is one row: a request to /responses (kind "response") or a
// submitted batch (kind "batch"). Pointers are nil when unknown.
type Entry struct {
	ID      int64     `json:"id"`
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Profile string    `json:"profile"`
	Host    string    `json:"host"`
	// Model is the model asked for; ModelServed the one that answered.
	Model       string `json:"model"`
	ModelServed string `json:"model_served"`
	Provider    string `json:"provider"`
	// Input is this request's prompt (the last user message); Request
	// the whole request as JSON (history and settings), never a key.
	Input        string `json:"input"`
	Instructions string `json:"instructions"`
	Request      string `json:"-"`
	Answer       string `json:"answer"`
	// AnswerTruncated: the answer was longer than MaxAnswerBytes.
	AnswerTruncated bool `json:"answer_truncated"`
	// State is how it ended (completed, incomplete, failed, stopped,
	// interrupted, no answer, ... and for a batch "submitted").
	State           string   `json:"state"`
	Error           string   `json:"error"`
	InputTokens     *int64   `json:"input_tokens"`
	OutputTokens    *int64   `json:"output_tokens"`
	ReasoningTokens *int64   `json:"reasoning_tokens"`
	CachedTokens    *int64   `json:"cached_tokens"`
	Cost            *float64 `json:"cost"`
	TTFTMillis      *int64   `json:"ttft_ms"`
	TokensPerSecond *float64 `json:"tokens_per_second"`
	DurationMillis  *int64   `json:"duration_ms"`
	Streamed        bool     `json:"streamed"`
	GenerationID    string   `json:"generation_id"`
	// Generation is the generation record as JSON, once fetched.
	Generation     string `json:"-"`
	LatencyMillis  *int64 `json:"latency_ms"`
	CompareGroup   string `json:"compare_group"`
	ConversationID *int64 `json:"conversation_id"`
	ReplayOf       *int64 `json:"replay_of"`
	BatchID        string `json:"batch_id"`
	BatchRequests  *int64 `json:"batch_requests"`

	// threadKey names the conversation up to and with this answer;
	// parentKey the conversation this request continues.
	threadKey, parentKey string
}

// MaxAnswerBytes is the most of an answer a row keeps; MaxRequestBytes
// the most of a request (a batch's requests can be large).
const (
	MaxAnswerBytes  = 2 << 20
	MaxRequestBytes = 8 << 20
)

// size is what a row counts toward the size retention.
func (e *Entry) size() int64 {
	return int64(len(e.Input) + len(e.Instructions) + len(e.Request) + len(e.Answer) + len(e.Generation) + len(e.Error) + 256)
}

// columns are written in this order by insert.
const insertSQL = `INSERT INTO requests (time, time_ms, kind, profile, host, model, model_served, provider, input, instructions,
	request, answer, answer_truncated, state, error, input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost, ttft_ms,
	tokens_per_second, duration_ms, streamed, generation_id, generation, latency_ms, compare_group, conversation_id, thread_key,
	replay_of, batch_id, batch_requests, size)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// Insert writes a row and returns its id. A request that continues a
// logged conversation joins it; a first turn starts one named by its own
// id.
func (db *DB) Insert(ctx context.Context, e *Entry) (int64, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if e.parentKey != "" && e.ConversationID == nil {
		var conv sql.NullInt64
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id, conversation_id FROM requests WHERE thread_key = ? ORDER BY id DESC LIMIT 1`, e.parentKey).Scan(&id, &conv)
		switch {
		case err == nil && conv.Valid:
			e.ConversationID = &conv.Int64
		case err == nil:
			e.ConversationID = &id
		case err != sql.ErrNoRows:
			return 0, err
		}
	}
	t := e.Time.UTC()
	res, err := tx.ExecContext(ctx, insertSQL, t.Format(time.RFC3339Nano), t.UnixMilli(), e.Kind, e.Profile, e.Host, e.Model, e.ModelServed,
		e.Provider, e.Input, e.Instructions, e.Request, e.Answer, e.AnswerTruncated, e.State, e.Error, e.InputTokens, e.OutputTokens,
		e.ReasoningTokens, e.CachedTokens, e.Cost, e.TTFTMillis, e.TokensPerSecond, e.DurationMillis, e.Streamed, e.GenerationID,
		e.Generation, e.LatencyMillis, e.CompareGroup, e.ConversationID, e.threadKey, e.ReplayOf, e.BatchID, e.BatchRequests, e.size())
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if e.Kind == KindResponse && e.ConversationID == nil {
		if _, err := tx.ExecContext(ctx, `UPDATE requests SET conversation_id = id WHERE id = ?`, id); err != nil {
			return 0, err
		}
		e.ConversationID = &id
	}
	e.ID = id
	return id, tx.Commit()
}

// SetGeneration stores a generation record (JSON) on the rows of that
// generation id, with the provider and latency it names.
func (db *DB) SetGeneration(ctx context.Context, generationID, record, provider string, latency *int64) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE requests SET generation = ?, provider = CASE WHEN ? != '' THEN ? ELSE provider END,
		latency_ms = coalesce(?, latency_ms), size = size + ? WHERE generation_id = ?`,
		record, provider, provider, latency, len(record), generationID)
	return err
}

// SetCompareGroup puts rows in one comparison.
func (db *DB) SetCompareGroup(ctx context.Context, group string, ids ...int64) error {
	for _, id := range ids {
		if _, err := db.sql.ExecContext(ctx, `UPDATE requests SET compare_group = ? WHERE id = ?`, group, id); err != nil {
			return err
		}
	}
	return nil
}

// RequestJSON is the stored request as JSON (null when none).
func (e *Entry) RequestJSON() json.RawMessage {
	if e.Request == "" || !json.Valid([]byte(e.Request)) {
		return json.RawMessage("null")
	}
	return json.RawMessage(e.Request)
}

// GenerationJSON is the stored generation record (null when none).
func (e *Entry) GenerationJSON() json.RawMessage {
	if e.Generation == "" || !json.Valid([]byte(e.Generation)) {
		return json.RawMessage("null")
	}
	return json.RawMessage(e.Generation)
}

// StateSubmitted is the state of a batch row: the batch was accepted.
const StateSubmitted = "submitted"

// States are the states a row can hold: a response's end state, or
// StateSubmitted for a batch (a filter by state names one of these).
var States = []string{string(api.EndCompleted), string(api.EndIncomplete), string(api.EndFailed), string(api.EndInterrupted),
	string(api.EndNoFinal), string(api.EndMalformed), string(api.EndTimedOut), string(api.EndStopped), string(api.EndTruncated),
	string(api.EndNoAnswer), StateSubmitted}
