// Package jsonschema checks JSON Schemas (draft 2020-12 unless the schema
// names another draft with $schema) and validates answers against them. It
// wraps github.com/santhosh-tekuri/jsonschema/v6 and turns its errors into
// flat lists of problems, each with the JSON pointer where it is.
//
// Schemas come from users and answers from the network: a schema may not
// load anything ($ref to a file or a URL is refused), and the sizes of both
// are bounded.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Limits.
const (
	MaxSchemaBytes = 256 << 10 // a schema file or pasted text
	MaxAnswerBytes = 8 << 20   // an answer validated against a schema
	MaxProblems    = 100       // problems listed; the rest are counted
)

// Problem is one thing wrong, at Pointer (a JSON pointer, "" for the
// whole document).
type Problem struct {
	Pointer string
	Message string
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return ptr + ": " + p.Message
}

// Error lists every problem of a schema or of an answer. Omitted counts
// the problems past MaxProblems.
type Error struct {
	// What is "schema" (the schema is not a valid JSON Schema) or "answer"
	// (the answer does not validate).
	What     string
	Problems []Problem
	Omitted  int
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.What == "schema" {
		b.WriteString("the schema is not a valid JSON Schema: ")
	} else {
		b.WriteString("the answer does not match the schema: ")
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "; and %d more", e.Omitted)
	}
	return b.String()
}

// Schema is a compiled schema.
type Schema struct {
	s   *js.Schema
	raw json.RawMessage
}

// Raw is the schema as given (compact JSON), to send in a request.
func (s *Schema) Raw() json.RawMessage { return s.raw }

const schemaURL = "gwdash:///schema.json"

// refuseLoader refuses every $ref that leaves the schema.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %s: only references inside the schema are allowed", url)
}

var printer = message.NewPrinter(language.English)

// Compile reads a schema from JSON text. A syntax error says the line and
// column; a schema that is not a valid JSON Schema is an *Error listing
// each problem with its pointer inside the schema.
func Compile(text []byte) (*Schema, error) {
	if len(text) > MaxSchemaBytes {
		return nil, fmt.Errorf("the schema is %d bytes; at most %d", len(text), MaxSchemaBytes)
	}
	doc, err := decode(text)
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, &Error{What: "schema", Problems: []Problem{{Message: "a schema must be a JSON object (or true/false)"}}}
	}
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("the schema cannot be read: %s", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, schemaError(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, text); err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	return &Schema{s: s, raw: compact.Bytes()}, nil
}

// schemaError turns a compile error into an *Error.
func schemaError(err error) error {
	var sve *js.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *js.ValidationError
		if errors.As(sve.Err, &ve) {
			e := &Error{What: "schema"}
			flatten(ve, e)
			if len(e.Problems) > 0 {
				return e
			}
		}
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, schemaURL+"#", "#")
	msg = strings.ReplaceAll(msg, schemaURL, "the schema")
	return &Error{What: "schema", Problems: []Problem{{Message: msg}}}
}

// Validate checks an answer (JSON text). nil means valid; otherwise an
// *Error lists every violation with its pointer inside the answer, or the
// answer is not JSON at all (a plain error saying where).
func (s *Schema) Validate(answer []byte) error {
	if len(answer) > MaxAnswerBytes {
		return fmt.Errorf("the answer is %d bytes; at most %d are validated", len(answer), MaxAnswerBytes)
	}
	doc, err := decode(answer)
	if err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	return s.ValidateValue(doc)
}

// ValidateValue checks a decoded value (numbers as json.Number).
func (s *Schema) ValidateValue(doc any) error {
	err := s.s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *js.ValidationError
	if !errors.As(err, &ve) {
		return &Error{What: "answer", Problems: []Problem{{Message: err.Error()}}}
	}
	e := &Error{What: "answer"}
	flatten(ve, e)
	return e
}

// flatten collects the leaves of a validation error tree: each is one
// concrete violation.
func flatten(ve *js.ValidationError, e *Error) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			flatten(c, e)
		}
		return
	}
	p := Problem{Pointer: pointer(ve.InstanceLocation), Message: ve.ErrorKind.LocalizedString(printer)}
	if slices.Contains(e.Problems, p) {
		return
	}
	// In a schema, the alternatives of the metaschema (a type is a name
	// or a list of names) say one mistake several ways: the first is kept.
	if e.What == "schema" && slices.ContainsFunc(e.Problems, func(q Problem) bool { return q.Pointer == p.Pointer }) {
		return
	}
	if len(e.Problems) >= MaxProblems {
		e.Omitted++
		return
	}
	e.Problems = append(e.Problems, p)
}

// pointer writes a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// decode reads one JSON value, numbers kept exact; a syntax error says
// the line and column.
func decode(text []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, located(text, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// located rewrites a decoding error to name line and column.
func located(text []byte, err error) error {
	var se *json.SyntaxError
	off := int64(-1)
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("it ends too early (unclosed value)")
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(text)); i++ {
		if text[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}
