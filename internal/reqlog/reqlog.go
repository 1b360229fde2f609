// Package reqlog is gwdash's local log of every request it sends to
// /responses and every batch it submits: one SQLite file in the state
// directory (mode 0600), read and written through a pure-Go driver, with
// full-text search over input and answer, links between the turns of a
// conversation, the panes of a comparison and a replay and what it
// replays, spend per day, and retention by age and size.
//
// Text is kept in plain columns, so that sqlite3 or datasette can read the
// file. Keys are never stored: rows are built from requests and answers,
// which hold none. Text that came from a server is stored through
// textsafe.Clean; printers sanitize again where they draw.
//
// The package imports no UI. Writers go through a Recorder, which writes
// off the caller's goroutine and reports each kind of problem (locked,
// full, damaged) once: a request never waits for, or fails because of,
// its log.
package reqlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the log's file in the state directory.
const FileName = "requests.db"

// Retention defaults: rows older than DefaultMaxAge, and the oldest rows
// past DefaultMaxBytes of text, are pruned.
const (
	DefaultMaxAge   = 90 * 24 * time.Hour
	DefaultMaxBytes = 512 << 20
)

// busyTimeout is how long a write waits for another gwdash process that
// holds the write lock.
var busyTimeout = 5 * time.Second

// Kinds of rows.
const (
	KindResponse = "response"
	KindBatch    = "batch"
)

// Path is the log file in a state directory.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// DB is an open log.
type DB struct {
	sql  *sql.DB
	path string
}

// migrations brings a database from version i to i+1 (PRAGMA
// user_version); a database is never moved backwards, and one written by
// a newer gwdash is left alone.
var migrations = []string{
	// 1: the requests, their full-text index and what keeps it in step.
	`CREATE TABLE requests (
		id                INTEGER PRIMARY KEY,
		time              TEXT    NOT NULL,
		time_ms           INTEGER NOT NULL,
		kind              TEXT    NOT NULL,
		profile           TEXT    NOT NULL DEFAULT '',
		host              TEXT    NOT NULL DEFAULT '',
		model             TEXT    NOT NULL DEFAULT '',
		model_served      TEXT    NOT NULL DEFAULT '',
		provider          TEXT    NOT NULL DEFAULT '',
		input             TEXT    NOT NULL DEFAULT '',
		instructions      TEXT    NOT NULL DEFAULT '',
		request           TEXT    NOT NULL DEFAULT '',
		answer            TEXT    NOT NULL DEFAULT '',
		answer_truncated  INTEGER NOT NULL DEFAULT 0,
		state             TEXT    NOT NULL DEFAULT '',
		error             TEXT    NOT NULL DEFAULT '',
		input_tokens      INTEGER,
		output_tokens     INTEGER,
		reasoning_tokens  INTEGER,
		cached_tokens     INTEGER,
		cost              REAL,
		ttft_ms           INTEGER,
		tokens_per_second REAL,
		duration_ms       INTEGER,
		streamed          INTEGER NOT NULL DEFAULT 0,
		generation_id     TEXT    NOT NULL DEFAULT '',
		generation        TEXT    NOT NULL DEFAULT '',
		latency_ms        INTEGER,
		compare_group     TEXT    NOT NULL DEFAULT '',
		conversation_id   INTEGER,
		thread_key        TEXT    NOT NULL DEFAULT '',
		replay_of         INTEGER,
		batch_id          TEXT    NOT NULL DEFAULT '',
		batch_requests    INTEGER,
		size              INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX requests_time ON requests(time_ms);
	CREATE INDEX requests_generation ON requests(generation_id) WHERE generation_id != '';
	CREATE INDEX requests_thread ON requests(thread_key) WHERE thread_key != '';
	CREATE INDEX requests_conversation ON requests(conversation_id);
	CREATE VIRTUAL TABLE requests_fts USING fts5(input, answer, content='requests', content_rowid='id');
	CREATE TRIGGER requests_ai AFTER INSERT ON requests BEGIN
		INSERT INTO requests_fts(rowid, input, answer) VALUES (new.id, new.input, new.answer);
	END;
	CREATE TRIGGER requests_ad AFTER DELETE ON requests BEGIN
		INSERT INTO requests_fts(requests_fts, rowid, input, answer) VALUES ('delete', old.id, old.input, old.answer);
	END;
	CREATE TRIGGER requests_au AFTER UPDATE OF input, answer ON requests BEGIN
		INSERT INTO requests_fts(requests_fts, rowid, input, answer) VALUES ('delete', old.id, old.input, old.answer);
		INSERT INTO requests_fts(rowid, input, answer) VALUES (new.id, new.input, new.answer);
	END;`,
	// 2: spend per day reads an index alone, not every row.
	`CREATE INDEX requests_spend ON requests(time_ms, model_served, model, provider, cost);`,
}

// SchemaVersion is the version this gwdash writes.
func SchemaVersion() int { return len(migrations) }

// Problem is why the log could not be used or written; its message says
// what happened and what to do, in words.
type Problem struct {
	// Kind is one of "locked", "full", "damaged", "newer", "unsafe",
	// "unavailable".
	Kind string
	Msg  string
	Err  error
}

func (p *Problem) Error() string { return p.Msg }
func (p *Problem) Unwrap() error { return p.Err }

// classify words an error of the driver.
func classify(path string, err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var se *sqlite.Error
	code := 0
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	switch {
	case code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED:
		return &Problem{Kind: "locked", Err: err, Msg: fmt.Sprintf("the request log %s stayed locked by another process for over %s", path, busyTimeout)}
	case code == sqlite3.SQLITE_FULL:
		return &Problem{Kind: "full", Err: err, Msg: fmt.Sprintf("the disk holding the request log %s is full", path)}
	case code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB:
		return &Problem{Kind: "damaged", Err: err, Msg: fmt.Sprintf("the request log %s is damaged (not a readable SQLite database)", path)}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &Problem{Kind: "unavailable", Err: err, Msg: "the request log was not written in time (gwdash was closing)"}
	case errors.Is(err, fs.ErrPermission):
		return &Problem{Kind: "unavailable", Err: err, Msg: fmt.Sprintf("the request log %s cannot be opened: permission denied", path)}
	}
	msg := err.Error()
	if se != nil {
		msg = sqlite.ErrorCodeString[se.Code()]
	}
	return &Problem{Kind: "unavailable", Err: err, Msg: fmt.Sprintf("the request log %s cannot be used (%s)", path, strings.TrimSpace(msg))}
}

// Open opens (or creates) the log at path, mode 0600 in a 0700 folder. A
// symbolic link at path is refused, never followed. A file that is not a
// readable database is moved aside (to path.damaged-<time>) and a new log
// started: notice then says so. Errors are *Problem.
func Open(path string) (db *DB, notice string, err error) {
	if err := prepareFile(path); err != nil {
		return nil, "", err
	}
	db, err = open(path)
	if err == nil {
		return db, "", nil
	}
	p := classify(path, err)
	if p.Kind != "damaged" {
		return nil, "", p
	}
	aside := fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102-150405"))
	if rerr := os.Rename(path, aside); rerr != nil {
		return nil, "", p
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Rename(path+suffix, aside+suffix)
	}
	if err := prepareFile(path); err != nil {
		return nil, "", err
	}
	db, err = open(path)
	if err != nil {
		return nil, "", classify(path, err)
	}
	return db, fmt.Sprintf("the request log %s was damaged: it was moved to %s and a new log started", path, aside), nil
}

// prepareFile makes the folder (0700) and the file (0600) without
// following a symbolic link, and narrows a file readable by others.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &Problem{Kind: "unavailable", Err: err, Msg: fmt.Sprintf("the request log's folder %s cannot be made: %s", filepath.Dir(path), errText(err))}
	}
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return &Problem{Kind: "unsafe", Msg: fmt.Sprintf("the request log %s is a symbolic link: it is not followed (remove it, or turn the log off)", path)}
	case err == nil && !st.Mode().IsRegular():
		return &Problem{Kind: "unsafe", Msg: fmt.Sprintf("the request log %s is not a regular file", path)}
	case err == nil:
		if st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return &Problem{Kind: "unsafe", Err: err, Msg: fmt.Sprintf("the request log %s is readable by others and cannot be narrowed to 0600", path)}
			}
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return classify(path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|noFollow, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return prepareFile(path) // another process made it first
	}
	if err != nil {
		return classify(path, err)
	}
	return f.Close()
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// dsn names the file and the settings every connection gets: WAL (a
// reader never blocks a writer), a busy timeout (two processes writing
// at once wait for each other instead of failing), write transactions
// that take the lock at once, incremental vacuum (prune gives space
// back).
func dsn(path string) string {
	q := url.Values{}
	for _, p := range []string{"auto_vacuum(INCREMENTAL)", "journal_mode(WAL)", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()), "synchronous(NORMAL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func open(path string) (*DB, error) {
	s, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	s.SetMaxOpenConns(4)
	db := &DB{sql: s, path: path}
	if err := db.migrate(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return db, nil
}

// migrate brings the schema to SchemaVersion. The version is read first
// without a lock; only a migration takes the write lock, in one
// transaction that reads the version again.
func (db *DB) migrate(ctx context.Context) error {
	var v int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > len(migrations) {
		return db.newer(v)
	}
	if v == len(migrations) {
		// Read the schema once: a file that is not a database fails here.
		var n int
		return db.sql.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > len(migrations) {
		return db.newer(v)
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("schema %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

func (db *DB) newer(v int) error {
	return &Problem{Kind: "newer", Msg: fmt.Sprintf("the request log %s was written by a newer gwdash (schema %d, this one knows %d): it is left as it is", db.path, v, len(migrations))}
}

// Path is the file.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }
