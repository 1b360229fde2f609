package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// NotOfferedError is a 404 or 405 on a route the real service offers but a
// server need not (listing batches, the models catalogue, /key,
// /generation): the caller falls back instead of failing.
type NotOfferedError struct {
	Op  string
	Err *APIError
}

func (e *NotOfferedError) Error() string { return "this server does not offer " + e.Op }

// Unwrap returns the answer.
func (e *NotOfferedError) Unwrap() error { return e.Err }

// IsNotOffered reports whether err says a route is not offered.
func IsNotOffered(err error) bool {
	var no *NotOfferedError
	return errors.As(err, &no)
}

// optional turns a 404 or 405 on an optional route into a
// *NotOfferedError.
func optional(op string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) {
		return &NotOfferedError{Op: op, Err: ae}
	}
	return err
}

// BatchListOptions select a page of batches. Limit 0 means the server's
// default (20).
type BatchListOptions struct {
	Limit  int
	After  string
	Status BatchStatus
}

// Validate checks the options before anything is sent.
func (o BatchListOptions) Validate() error {
	if o.Limit != 0 && (o.Limit < 1 || o.Limit > 100) {
		return &ValidationError{Field: "limit", Rule: "must be 1 to 100"}
	}
	if o.Status != "" && !o.Status.Known() {
		return &ValidationError{Field: "status", Rule: fmt.Sprintf("must be one of %v", BatchStatuses)}
	}
	return nil
}

// BatchPage is one page of GET /batches. Data is read from whatever object
// came; HasMore and LastID drive the cursor.
type BatchPage struct {
	Data    []Batch `json:"data"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
	HasMore bool    `json:"has_more"`
	Raw     json.RawMessage
}

// ListBatches fetches one page of the caller's batches, newest first. A
// server that does not list batches gives a *NotOfferedError.
func (c *Client) ListBatches(ctx context.Context, o BatchListOptions) (*BatchPage, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	q := url.Values{}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.After != "" {
		q.Set("after", o.After)
	}
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	var page BatchPage
	raw, err := c.call(ctx, request{method: http.MethodGet, path: "/batches", query: q, limit: MaxListPageBytes, resource: "batches"}, &page)
	if err != nil {
		return nil, optional("GET /batches", err)
	}
	if page.Data == nil {
		return nil, &DecodeError{Op: "GET /batches", Status: 200, Err: errors.New("no data array")}
	}
	page.Raw = raw
	return &page, nil
}

// AllBatches walks the pages of batches with a Pager, yielding each batch
// once. It stops when a page says there is no more, and ends with a
// *PagingStoppedError when the walk stopped early (a page without news, a
// cursor sent again, a bound of DefaultListBounds), and at the first
// error.
func (c *Client) AllBatches(ctx context.Context, o BatchListOptions) iter.Seq2[Batch, error] {
	return c.WalkBatches(ctx, o, NewPager())
}

// WalkBatches is AllBatches with a Pager of the caller's (its bounds).
func (c *Client) WalkBatches(ctx context.Context, o BatchListOptions, p *Pager) iter.Seq2[Batch, error] {
	return walk(p, func() ([]Batch, error) {
		o.After = p.After()
		page, err := c.ListBatches(ctx, o)
		if err != nil {
			return nil, err
		}
		return p.Batches(page), nil
	})
}

// DeleteBatch deletes a settled batch. An in-flight one answers 409 (an
// *APIError whose Hint says why); a gone one 404. It is never retried.
func (c *Client) DeleteBatch(ctx context.Context, id string) error {
	if id == "" {
		return &ValidationError{Field: "id", Rule: "is required"}
	}
	var out map[string]json.RawMessage
	_, err := c.call(ctx, request{method: http.MethodDelete, path: "/batches/" + pathID(id), op: "DELETE /batches/{id}", resource: "batch"}, &out)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusMethodNotAllowed {
			return &NotOfferedError{Op: "DELETE /batches/{id}", Err: ae}
		}
		return err
	}
	return nil
}

// Settled reports whether a batch in status s can be deleted.
func (s BatchStatus) Settled() bool { return s.Terminal() }
