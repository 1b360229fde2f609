package api

import (
	"context"
	"encoding/json"
	"errors"
)

// One home for how answers are decoded: {"data": ...} envelopes
// (callData), and the types that keep the bytes the server sent in a Raw
// member (Response, OutputItem, Batch, ResultItem, Destination,
// ContentBlock; StopCondition only encodes), which decode and encode
// through decodeKeeping and encodeKept: decoding fills every member afresh
// and keeps a copy of the bytes; encoding writes those bytes back when
// there are some.

// Their plain forms: the same members without the methods, for
// decodeKeeping and encodeKept.
type (
	plainResponse      Response
	plainOutputItem    OutputItem
	plainBatch         Batch
	plainResultItem    ResultItem
	plainDestination   Destination
	plainContentBlock  ContentBlock
	plainStopCondition StopCondition
)

// decodeKeeping decodes b with unmarshal into a fresh value of the plain
// type P (the type without its methods), stores it in *dst and then a copy
// of b in *raw (the Raw member of *dst).
func decodeKeeping[P any](b []byte, dst *P, raw *json.RawMessage, unmarshal func([]byte, any) error) error {
	var p P
	if err := unmarshal(b, &p); err != nil {
		return err
	}
	*dst = p
	*raw = append(json.RawMessage(nil), b...)
	return nil
}

// encodeKept is raw when it is set, else p (the plain type) encoded.
func encodeKept[P any](raw json.RawMessage, p P) ([]byte, error) {
	if len(raw) > 0 {
		return raw, nil
	}
	return json.Marshal(p)
}

// callData sends r and decodes an answer of the form {"data": ...}. The
// call's error comes back as it is (callers word a missing route their
// way); an answer without the data member is a *DecodeError naming the
// operation and status, the route's success status.
func callData[T any](ctx context.Context, c *Client, r request, status int) (*T, []byte, error) {
	var out struct {
		Data *T `json:"data"`
	}
	raw, err := c.call(ctx, r, &out)
	if err != nil {
		return nil, raw, err
	}
	if out.Data == nil {
		return nil, raw, &DecodeError{Op: r.opName(), Status: status, Err: errors.New("no data member")}
	}
	return out.Data, raw, nil
}
