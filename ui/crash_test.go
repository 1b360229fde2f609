package ui

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// panicky is a gateway whose Host panics: the header calls it on every
// frame.
type panicky struct{ Client }

func (panicky) Host() string           { panic("boom in the header") }
func (panicky) BaseURL() string        { return "https://gw.test/api/v1" }
func (panicky) HasManagementKey() bool { return true }
func (panicky) HasAPIKey() bool        { return false }

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestPanicRestoresTheTerminalAndReports(t *testing.T) {
	var out, log lockedBuf
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, Options{Client: panicky{}, Log: slog.New(slog.NewTextHandler(&log, nil))}, strings.NewReader(""), &out)
	var ce *CrashError
	if !errors.As(err, &ce) || !strings.Contains(ce.Value, "boom in the header") {
		t.Fatalf("want a crash report, got %v", err)
	}
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Fatalf("the alternate screen was not left: %q", out.String())
	}
	if !strings.Contains(log.String(), "stack=") || !strings.Contains(log.String(), "panicky.Host") {
		t.Fatalf("the log lacks the stack")
	}
}
