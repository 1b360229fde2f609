package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
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

// keyPanics is a gateway whose Key panics: the credit line's command
// runs it off the UI loop.
type keyPanics struct{ *fakeClient }

func (keyPanics) Key(context.Context) (*api.KeyInfo, error) { panic("boom in a command") }

// A panic inside a command is an error on screen: nothing reaches stdout
// past the terminal filter, the program goes on, and q still quits.
func TestPanicInACommandIsAnErrorOnScreen(t *testing.T) {
	var out, log lockedBuf
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, keys := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Client: keyPanics{fakeBatches()}, Renderer: plainRenderer(), Log: slog.New(slog.NewTextHandler(&log, nil))}, in, &out)
	}()
	for !strings.Contains(out.String(), "internal error (not done): boom in a command") {
		select {
		case err := <-done:
			t.Fatalf("the program ended: %v\n%s", err, out.String())
		case <-ctx.Done():
			t.Fatalf("no error on screen:\n%q", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	keys.Write([]byte("q"))
	if err := <-done; err != nil {
		t.Fatalf("quit: %v", err)
	}
	if s := out.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
		t.Fatalf("the panic reached the terminal:\n%s", s)
	}
	if !strings.Contains(log.String(), "keyPanics.Key") {
		t.Fatal("the log lacks the stack")
	}
}

// A Cmd's panic, its batches' panics: each becomes an error notice.
func TestSafeCmdRecoversInBatches(t *testing.T) {
	c := &common{}
	cmd := c.safeCmd(viewBatches, tea.Batch(func() tea.Msg { panic("one") }, func() tea.Msg { return rowPollMsg{id: "x"} }))
	msgs := runCmd(cmd)
	if len(msgs) != 2 {
		t.Fatalf("%#v", msgs)
	}
	if n, ok := msgs[0].(noticeMsg); !ok || !n.err || !strings.Contains(n.text, "one") {
		t.Fatalf("%#v", msgs[0])
	}
	if a, ok := msgs[1].(addressedMsg); !ok || a.view != viewBatches {
		t.Fatalf("%#v", msgs[1])
	}
	if got := c.address(viewBatches, tea.QuitMsg{}); got != (tea.QuitMsg{}) {
		t.Fatalf("Bubble Tea's own messages pass as they are: %#v", got)
	}
}
