package ui

// Read-only sessions: every write is refused before anything is sent, at
// the key that asks for it (with a word saying why), and again by the
// client the views hold, so that no path can send one. The rule and its
// words live in internal/present (RefuseWrite), shared with the commands.

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/present"
)

// refuseWrite is a notice saying why the change what is refused in a
// read-only session, or nil when writes are allowed.
func (c *common) refuseWrite(what string) tea.Cmd {
	if err := present.RefuseWrite(c.opts.ReadOnly, what); err != nil {
		return say(err.Error())
	}
	return nil
}

// hideWrites leaves the keys that write out of the help of a read-only
// session, where they are refused: a key that writes is listed only when
// writes are allowed. It disables the bindings of the copy of a key map
// that help reads; Update matches its own copy, so the key still answers
// with the refusal.
func (c *common) hideWrites(writes ...*key.Binding) {
	if !c.opts.ReadOnly {
		return
	}
	for _, b := range writes {
		b.SetEnabled(false)
	}
}

// readOnlyClient refuses every write of the client it wraps.
type readOnlyClient struct{ Client }

// guardWrites wraps the client of a read-only session.
func guardWrites(c Client, readOnly bool) Client {
	if !readOnly || c == nil {
		return c
	}
	return readOnlyClient{c}
}

func (readOnlyClient) SubmitBatch(context.Context, string, string, []api.BatchRequest) (*api.Batch, error) {
	return nil, present.RefuseWrite(true, present.WriteBatchSubmit)
}

func (readOnlyClient) DeleteBatch(context.Context, string) error {
	return present.RefuseWrite(true, present.WriteBatchDelete)
}

func (readOnlyClient) CreateDestination(context.Context, api.DestinationCreate) (*api.Destination, error) {
	return nil, present.RefuseWrite(true, present.WriteDestCreate)
}

func (readOnlyClient) UpdateDestination(context.Context, string, api.DestinationPatch) (*api.Destination, error) {
	return nil, present.RefuseWrite(true, present.WriteDestUpdate)
}

func (readOnlyClient) DeleteDestination(context.Context, string) error {
	return present.RefuseWrite(true, present.WriteDestDelete)
}
