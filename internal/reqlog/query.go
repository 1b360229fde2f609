package reqlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// Filter selects rows. Zero fields select everything.
type Filter struct {
	// Search is words to find in the input or the answer (full text,
	// every word, each as a prefix).
	Search string
	// Model matches the model asked or served (case-insensitive part);
	// Provider the provider likewise; State the end state exactly.
	Model, Provider, State, Kind string
	// Since and Until bound the time (Until excluded).
	Since, Until time.Time
	// MinCost and MaxCost bound the cost in USD (rows of unknown cost
	// are left out when either is set).
	MinCost, MaxCost *float64
	// BeforeID pages: only rows older than this id.
	BeforeID int64
	// Limit caps the rows (0: DefaultLimit; at most MaxLimit).
	Limit int
}

// Limits of a listing.
const (
	DefaultLimit = 50
	MaxLimit     = 100000
)

// MaxSearchLen bounds the search text.
const MaxSearchLen = 1000

// Check refuses a filter that cannot be run, naming the field.
func (f Filter) Check() error {
	switch {
	case len(f.Search) > MaxSearchLen:
		return fmt.Errorf("search: at most %d characters", MaxSearchLen)
	case f.Limit < 0 || f.Limit > MaxLimit:
		return fmt.Errorf("limit: 1 to %d", MaxLimit)
	case f.MinCost != nil && f.MaxCost != nil && *f.MinCost > *f.MaxCost:
		return fmt.Errorf("cost: the minimum is above the maximum")
	case !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until):
		return fmt.Errorf("since: must be before until")
	}
	return nil
}

// matchQuery turns words into an FTS5 query: each word quoted (so that no
// word is read as an operator) and matched as a prefix; all must match.
func matchQuery(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	parts := make([]string, 0, len(words))
	for _, w := range words {
		parts = append(parts, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	return strings.Join(parts, " ")
}

// from is the rows a filter reads: a search is driven by the full-text
// index, newest first, so that a page stops early.
func (f Filter) from() (from, order string) {
	if matchQuery(f.Search) != "" {
		return " FROM requests_fts JOIN requests r ON r.id = requests_fts.rowid", " ORDER BY requests_fts.rowid DESC"
	}
	return " FROM requests r", " ORDER BY r.id DESC"
}

// where builds the conditions of a filter.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if q := matchQuery(f.Search); q != "" {
		conds = append(conds, "requests_fts MATCH ?")
		args = append(args, q)
	}
	if f.Model != "" {
		conds = append(conds, "(instr(lower(r.model), lower(?)) > 0 OR instr(lower(r.model_served), lower(?)) > 0)")
		args = append(args, f.Model, f.Model)
	}
	if f.Provider != "" {
		conds = append(conds, "instr(lower(r.provider), lower(?)) > 0")
		args = append(args, f.Provider)
	}
	if f.State != "" {
		conds = append(conds, "r.state = ?")
		args = append(args, f.State)
	}
	if f.Kind != "" {
		conds = append(conds, "r.kind = ?")
		args = append(args, f.Kind)
	}
	if !f.Since.IsZero() {
		conds = append(conds, "r.time_ms >= ?")
		args = append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		conds = append(conds, "r.time_ms < ?")
		args = append(args, f.Until.UnixMilli())
	}
	if f.MinCost != nil {
		conds = append(conds, "r.cost >= ?")
		args = append(args, *f.MinCost)
	}
	if f.MaxCost != nil {
		conds = append(conds, "r.cost <= ?")
		args = append(args, *f.MaxCost)
	}
	if f.BeforeID > 0 {
		conds = append(conds, "r.id < ?")
		args = append(args, f.BeforeID)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// listColumns are what a listing reads: everything but the long text
// (the input is cut to its first line's start).
const listColumns = `r.id, r.time_ms, r.kind, r.profile, r.host, r.model, r.model_served, r.provider, substr(r.input, 1, 400), '', '', '',
	r.answer_truncated, r.state, r.error, r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cached_tokens, r.cost, r.ttft_ms,
	r.tokens_per_second, r.duration_ms, r.streamed, r.generation_id, '', r.latency_ms, r.compare_group, r.conversation_id, r.replay_of,
	r.batch_id, r.batch_requests`

const fullColumns = `r.id, r.time_ms, r.kind, r.profile, r.host, r.model, r.model_served, r.provider, r.input, r.instructions, r.request, r.answer,
	r.answer_truncated, r.state, r.error, r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cached_tokens, r.cost, r.ttft_ms,
	r.tokens_per_second, r.duration_ms, r.streamed, r.generation_id, r.generation, r.latency_ms, r.compare_group, r.conversation_id, r.replay_of,
	r.batch_id, r.batch_requests`

type scanner interface{ Scan(dest ...any) error }

func scanEntry(s scanner) (Entry, error) {
	var e Entry
	var ms int64
	var inTok, outTok, reTok, caTok, ttft, dur, lat, conv, replay, breqs sql.NullInt64
	var cost, tps sql.NullFloat64
	err := s.Scan(&e.ID, &ms, &e.Kind, &e.Profile, &e.Host, &e.Model, &e.ModelServed, &e.Provider, &e.Input, &e.Instructions, &e.Request,
		&e.Answer, &e.AnswerTruncated, &e.State, &e.Error, &inTok, &outTok, &reTok, &caTok, &cost, &ttft, &tps, &dur, &e.Streamed,
		&e.GenerationID, &e.Generation, &lat, &e.CompareGroup, &conv, &replay, &e.BatchID, &breqs)
	if err != nil {
		return e, err
	}
	e.Time = time.UnixMilli(ms).UTC()
	e.InputTokens, e.OutputTokens, e.ReasoningTokens, e.CachedTokens = i64(inTok), i64(outTok), i64(reTok), i64(caTok)
	e.TTFTMillis, e.DurationMillis, e.LatencyMillis = i64(ttft), i64(dur), i64(lat)
	e.ConversationID, e.ReplayOf, e.BatchRequests = i64(conv), i64(replay), i64(breqs)
	e.Cost, e.TokensPerSecond = f64(cost), f64(tps)
	return e, nil
}

func i64(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

func f64(n sql.NullFloat64) *float64 {
	if !n.Valid {
		return nil
	}
	v := n.Float64
	return &v
}

// List returns the rows a filter selects, newest first, without their
// long text (Get reads one whole).
func (db *DB) List(ctx context.Context, f Filter) ([]Entry, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	where, args := f.where()
	from, order := f.from()
	rows, err := db.sql.QueryContext(ctx, "SELECT "+listColumns+from+where+order+" LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Count is how many rows a filter selects (its paging fields aside).
func (db *DB) Count(ctx context.Context, f Filter) (int, error) {
	f.BeforeID, f.Limit = 0, 0
	if err := f.Check(); err != nil {
		return 0, err
	}
	where, args := f.where()
	from, _ := f.from()
	var n int
	err := db.sql.QueryRowContext(ctx, "SELECT count(*)"+from+where, args...).Scan(&n)
	return n, err
}

// ErrNotFound is a row id that is not in the log.
type ErrNotFound struct{ ID int64 }

func (e *ErrNotFound) Error() string {
	return fmt.Sprintf("no request %d in the log (gwdash logs lists them)", e.ID)
}

// Get reads one row whole.
func (db *DB) Get(ctx context.Context, id int64) (Entry, error) {
	e, err := scanEntry(db.sql.QueryRowContext(ctx, "SELECT "+fullColumns+" FROM requests r WHERE r.id = ?", id))
	if err == sql.ErrNoRows {
		return e, &ErrNotFound{ID: id}
	}
	return e, err
}

// SpendRow is the cost of one UTC day for one model and provider.
type SpendRow struct {
	Date     string  `json:"date"`
	Model    string  `json:"model"`
	Provider string  `json:"provider"`
	Cost     float64 `json:"cost"`
	Requests int     `json:"requests"`
	// Source is "local" (this log) or "activity" (the service's GET
	// /activity).
	Source string `json:"source"`
}

// Spend is the logged cost per UTC day, model and provider since a time
// (rows of unknown cost count as requests, not as cost).
func (db *DB) Spend(ctx context.Context, since time.Time) ([]SpendRow, error) {
	// Days as whole numbers (UTC): cheaper per row than date().
	rows, err := db.sql.QueryContext(ctx, `SELECT time_ms / 86400000 AS d, coalesce(nullif(model_served, ''), model), provider,
		coalesce(sum(cost), 0), count(*) FROM requests WHERE time_ms >= ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SpendRow
	for rows.Next() {
		var r SpendRow
		var day int64
		if err := rows.Scan(&day, &r.Model, &r.Provider, &r.Cost, &r.Requests); err != nil {
			return nil, err
		}
		r.Date, r.Source = time.UnixMilli(day*86400000).UTC().Format(time.DateOnly), "local"
		out = append(out, r)
	}
	return out, rows.Err()
}

// DailySpend sums spend rows per day over the days from first to last
// (UTC), a zero for a day with none.
func DailySpend(rows []SpendRow, first, last time.Time) []float64 {
	byDay := map[string]float64{}
	for _, r := range rows {
		byDay[r.Date] += r.Cost
	}
	var out []float64
	for d := first.UTC().Truncate(24 * time.Hour); !d.After(last.UTC()); d = d.Add(24 * time.Hour) {
		out = append(out, byDay[d.Format(time.DateOnly)])
	}
	return out
}

// GroupSpend sums spend rows by day, model or provider ("day" keeps the
// date; the others sum over the whole range, Date left empty), ordered by
// date, else by cost (highest first).
func GroupSpend(rows []SpendRow, by string) []SpendRow {
	key := func(r SpendRow) SpendRow {
		switch by {
		case "model":
			return SpendRow{Model: r.Model}
		case "provider":
			return SpendRow{Provider: r.Provider}
		}
		return SpendRow{Date: r.Date}
	}
	sources := map[int]string{}
	idx := map[SpendRow]int{}
	var out []SpendRow
	for _, r := range rows {
		k := key(r)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, k)
		}
		out[i].Cost += r.Cost
		out[i].Requests += r.Requests
		if src, seen := sources[i]; !seen || src == r.Source {
			sources[i] = r.Source
		} else {
			sources[i] = "activity" // a total that includes the service's figures
		}
	}
	for i := range out {
		out[i].Source = sources[i]
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Date != out[j].Date {
			return out[i].Date < out[j].Date
		}
		return out[i].Cost > out[j].Cost
	})
	return out
}

// PruneResult says what a prune removed.
type PruneResult struct {
	ByAge, BySize int64
}

// Prune removes rows older than maxAge, then the oldest rows until the
// text kept is at most maxBytes, and gives the space back to the disk.
func (db *DB) Prune(ctx context.Context, now time.Time, maxAge time.Duration, maxBytes int64) (PruneResult, error) {
	var res PruneResult
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	if maxAge > 0 {
		r, err := tx.ExecContext(ctx, `DELETE FROM requests WHERE time_ms < ?`, now.Add(-maxAge).UnixMilli())
		if err != nil {
			return res, err
		}
		res.ByAge, _ = r.RowsAffected()
	}
	if maxBytes > 0 {
		var cut sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT max(id) FROM (SELECT id, sum(size) OVER (ORDER BY id DESC) AS kept FROM requests) WHERE kept > ?`, maxBytes).Scan(&cut)
		if err != nil {
			return res, err
		}
		if cut.Valid {
			r, err := tx.ExecContext(ctx, `DELETE FROM requests WHERE id <= ?`, cut.Int64)
			if err != nil {
				return res, err
			}
			res.BySize, _ = r.RowsAffected()
		}
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	if res.ByAge+res.BySize > 0 {
		db.sql.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	}
	return res, nil
}

// Stats is the log's size.
type Stats struct {
	Rows      int
	TextBytes int64
	FileBytes int64
	Oldest    time.Time
}

// Stats reads the log's size.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	var oldest sql.NullInt64
	var pages, pageSize int64
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(size), 0), min(time_ms) FROM requests`).Scan(&s.Rows, &s.TextBytes, &oldest); err != nil {
		return s, err
	}
	if oldest.Valid {
		s.Oldest = time.UnixMilli(oldest.Int64).UTC()
	}
	db.sql.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages)
	db.sql.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize)
	s.FileBytes = pages * pageSize
	return s, nil
}

// Each calls fn for every row a filter selects, newest first, whole (the
// paging fields and the limit aside: an export reads everything), one row
// in memory at a time.
func (db *DB) Each(ctx context.Context, f Filter, fn func(Entry) error) error {
	f.BeforeID, f.Limit = 0, 0
	if err := f.Check(); err != nil {
		return err
	}
	where, args := f.where()
	from, order := f.from()
	rows, err := db.sql.QueryContext(ctx, "SELECT "+fullColumns+from+where+order, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// OpenExisting is Open for a log that exists, for reading and pruning; a
// missing file is *ErrNoLog (nothing is created).
func OpenExisting(path string) (*DB, string, error) {
	if _, err := os.Lstat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", &ErrNoLog{Path: path}
		}
		return nil, "", classify(path, err)
	}
	return Open(path)
}

// ErrNoLog is a log that was never written.
type ErrNoLog struct{ Path string }

func (e *ErrNoLog) Error() string {
	return "no request has been logged yet (the log will be " + e.Path + ")"
}

// MergeActivity replaces the local figures of the completed UTC days that
// GET /activity covers (the 30 before today) by the service's items (the
// whole account's, not only this machine's); today and older days stay
// local. Rows are ordered by date.
func MergeActivity(local []SpendRow, items []api.ActivityItem, from, now time.Time) []SpendRow {
	today := now.UTC().Truncate(24 * time.Hour)
	first := today.Add(-30 * 24 * time.Hour).Format(time.DateOnly)
	last := today.Format(time.DateOnly)
	fromDay := from.UTC().Format(time.DateOnly)
	var out []SpendRow
	for _, r := range local {
		if r.Date < first || r.Date >= last {
			out = append(out, r)
		}
	}
	for _, it := range items {
		if it.Date < fromDay || it.Date < first || it.Date >= last {
			continue
		}
		out = append(out, SpendRow{Date: it.Date, Model: textsafe.Line(it.Model), Provider: textsafe.Line(it.ProviderName), Cost: it.Usage,
			Requests: int(it.Requests), Source: "activity"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	return out
}
