package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gwdash/gwdash/internal/jsonschema"
)

// Response formats of text.format (service-facts.md, "Structured outputs").
const (
	FormatText       = "text"
	FormatJSONObject = "json_object"
	FormatJSONSchema = "json_schema"
)

// FormatTypes are the accepted text.format types, in the order a settings
// form offers them.
var FormatTypes = []string{FormatText, FormatJSONObject, FormatJSONSchema}

// nameRule is the rule of schema and function names: letters, digits, _
// and -, at most 64.
var nameRule = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// NameRule says in words what nameRule accepts.
const NameRule = "1 to 64 letters, digits, _ or -"

// TextFormat is text.format. For json_schema, Name and Schema are
// required; Schema is the JSON Schema as JSON text.
type TextFormat struct {
	Type        string
	Name        string
	Description string
	Schema      json.RawMessage
	Strict      *bool
}

// MarshalJSON writes the members of the format's type only.
func (f TextFormat) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": f.Type}
	if f.Type == FormatJSONSchema {
		m["name"] = f.Name
		m["schema"] = f.Schema
		if f.Strict != nil {
			m["strict"] = *f.Strict
		}
		if f.Description != "" {
			m["description"] = f.Description
		}
	}
	return json.Marshal(m)
}

// TextConfig is the request's text member.
type TextConfig struct {
	Format    *TextFormat `json:"format,omitempty"`
	Verbosity string      `json:"verbosity,omitempty"`
}

// SchemaFormat builds a json_schema format from a schema's JSON text: the
// schema is checked as a JSON Schema first. A bad schema is a
// *ValidationError naming text.format.schema and every problem with its
// location (line and column for JSON syntax, a JSON pointer otherwise).
func SchemaFormat(name string, schema []byte, strict bool) (*TextFormat, error) {
	f := &TextFormat{Type: FormatJSONSchema, Name: name, Schema: schema}
	if strict {
		f.Strict = &strict
	}
	if _, err := f.Compile(); err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Compile checks the schema of a json_schema format; nil for other types.
func (f *TextFormat) Compile() (*jsonschema.Schema, error) {
	if f == nil || f.Type != FormatJSONSchema {
		return nil, nil
	}
	if len(f.Schema) == 0 {
		return nil, &ValidationError{Field: "text.format.schema", Rule: "is required for json_schema"}
	}
	s, err := jsonschema.Compile(f.Schema)
	if err != nil {
		return nil, &ValidationError{Field: "text.format.schema", Rule: schemaRule(err)}
	}
	f.Schema = s.Raw()
	return s, nil
}

// schemaRule words a schema error as a rule.
func schemaRule(err error) string {
	var e *jsonschema.Error
	if errors.As(err, &e) {
		return "must be a valid JSON Schema (draft 2020-12): " + problemList(e)
	}
	return "must be a valid JSON Schema (draft 2020-12): " + err.Error()
}

func problemList(e *jsonschema.Error) string {
	parts := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		parts = append(parts, p.String())
	}
	if e.Omitted > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", e.Omitted))
	}
	return strings.Join(parts, "; ")
}

func (f *TextFormat) validate() error {
	switch f.Type {
	case FormatText, FormatJSONObject:
		if f.Name != "" || len(f.Schema) > 0 || f.Strict != nil {
			return &ValidationError{Field: "text.format", Rule: "name, schema and strict belong to json_schema only"}
		}
	case FormatJSONSchema:
		if !nameRule.MatchString(f.Name) {
			return &ValidationError{Field: "text.format.name", Rule: "must be " + NameRule}
		}
		if _, err := f.Compile(); err != nil {
			return err
		}
	default:
		return &ValidationError{Field: "text.format.type", Rule: "must be one of " + strings.Join(FormatTypes, ", ")}
	}
	return nil
}

// AnswerCheck is the verdict on an answer to a structured request.
type AnswerCheck struct {
	// Valid is true when the answer is JSON (json_object) or validates
	// against the schema (json_schema).
	Valid bool
	// NotJSON is set when the answer is not JSON at all (with where).
	NotJSON string
	// Problems are the schema violations, each with its JSON pointer.
	Problems []jsonschema.Problem
	Omitted  int
}

// CheckAnswer checks the text of an answer against the request's format.
// A text format (or none) accepts anything.
func CheckAnswer(f *TextFormat, answer string) (AnswerCheck, error) {
	if f == nil || f.Type == FormatText || f.Type == "" {
		return AnswerCheck{Valid: true}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	if f.Type == FormatJSONSchema {
		schema = f.Schema
	}
	s, err := jsonschema.Compile(schema)
	if err != nil {
		return AnswerCheck{}, &ValidationError{Field: "text.format.schema", Rule: schemaRule(err)}
	}
	err = s.Validate([]byte(answer))
	if err == nil {
		return AnswerCheck{Valid: true}, nil
	}
	var e *jsonschema.Error
	if errors.As(err, &e) {
		return AnswerCheck{Problems: e.Problems, Omitted: e.Omitted}, nil
	}
	return AnswerCheck{NotJSON: err.Error()}, nil
}

// PrettyPartialJSON indents JSON that may be cut short (a streamed answer
// still growing): whatever has arrived, indented by two spaces per level,
// without closing what is still open. Text outside strings that is not
// JSON passes through as it is.
func PrettyPartialJSON(s string) string {
	var p PrettyJSON
	return p.Feed(s)
}

// PrettyJSON is PrettyPartialJSON fed piece by piece: the pieces of Feed,
// joined, are PrettyPartialJSON of the whole, so that a growing answer is
// indented at the cost of what arrives. The zero value is ready to use.
type PrettyJSON struct {
	depth             int
	inString, escaped bool
	// open is set after { or [: its line break waits for what follows
	// (an empty object or array stays on one line).
	open bool
}

// Feed indents the next piece of the text and returns it.
func (p *PrettyJSON) Feed(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	newline := func() {
		b.WriteByte('\n')
		for range p.depth {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if p.inString {
			b.WriteByte(c)
			switch {
			case p.escaped:
				p.escaped = false
			case c == '\\':
				p.escaped = true
			case c == '"':
				p.inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '}', ']':
			p.depth = max(0, p.depth-1)
			if !p.open {
				newline()
			}
			p.open = false
			b.WriteByte(c)
			continue
		}
		if p.open {
			newline()
			p.open = false
		}
		switch c {
		case '"':
			p.inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			p.depth++
			p.open = true
		case ',':
			b.WriteByte(c)
			newline()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
