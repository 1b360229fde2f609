package jsonschema

import (
	"errors"
	"strings"
	"testing"
)

const person = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "age": {"type": "integer", "minimum": 0},
    "tags": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["name", "age"],
  "additionalProperties": false
}`

func TestValidAnswer(t *testing.T) {
	s, err := Compile([]byte(person))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{"name":"Ada","age":36,"tags":["x"]}`)); err != nil {
		t.Fatalf("valid answer refused: %v", err)
	}
	if got := string(s.Raw()); strings.ContainsAny(got, "\n ") {
		t.Fatalf("Raw is not compact: %q", got)
	}
}

func TestEveryViolationWithPointer(t *testing.T) {
	s, err := Compile([]byte(person))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate([]byte(`{"name":"","age":-1,"tags":["ok",3],"extra":true}`))
	var e *Error
	if !errors.As(err, &e) || e.What != "answer" {
		t.Fatalf("want *Error for the answer, got %v", err)
	}
	want := map[string]bool{"/name": false, "/age": false, "/tags/1": false, "": false}
	for _, p := range e.Problems {
		if _, ok := want[p.Pointer]; ok {
			want[p.Pointer] = true
		}
	}
	for ptr, seen := range want {
		if !seen {
			t.Errorf("no problem at %q in %v", ptr, e.Problems)
		}
	}
}

func TestMissingRequiredAtRoot(t *testing.T) {
	s, _ := Compile([]byte(person))
	err := s.Validate([]byte(`{"name":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "age") {
		t.Fatalf("missing age not named: %v", err)
	}
}

func TestAnswerNotJSON(t *testing.T) {
	s, _ := Compile([]byte(person))
	err := s.Validate([]byte("{\n \"name\": nope}"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("want a located syntax error, got %v", err)
	}
	if err := s.Validate([]byte(`{"name":"a","age":1} {}`)); err == nil {
		t.Fatal("two values accepted")
	}
	if err := s.Validate([]byte(`{"name":"a"`)); err == nil || !strings.Contains(err.Error(), "ends too early") {
		t.Fatalf("truncated answer: %v", err)
	}
}

func TestSchemaErrorLocated(t *testing.T) {
	_, err := Compile([]byte(`{"type":"object","properties":{"age":{"type":"integr"}}}`))
	var e *Error
	if !errors.As(err, &e) || e.What != "schema" {
		t.Fatalf("want a schema *Error, got %v", err)
	}
	if !strings.Contains(err.Error(), "/properties/age/type") {
		t.Fatalf("location missing: %v", err)
	}
	if _, err := Compile([]byte("{\n\"type\": }")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("syntax error not located: %v", err)
	}
	if _, err := Compile([]byte(`[1]`)); err == nil {
		t.Fatal("an array accepted as a schema")
	}
}

func TestRemoteRefRefused(t *testing.T) {
	for _, ref := range []string{"file:///etc/passwd", "https://example.com/s.json"} {
		_, err := Compile([]byte(`{"$ref":"` + ref + `"}`))
		if err == nil || !strings.Contains(err.Error(), "only references inside the schema") {
			t.Fatalf("%s: %v", ref, err)
		}
	}
	if _, err := Compile([]byte(`{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`)); err != nil {
		t.Fatalf("local ref refused: %v", err)
	}
}

func TestBounds(t *testing.T) {
	if _, err := Compile(make([]byte, MaxSchemaBytes+1)); err == nil {
		t.Fatal("oversized schema accepted")
	}
	s, _ := Compile([]byte(`{"type":"array","items":{"type":"string"}}`))
	big := "[" + strings.Repeat("1,", 500) + "1]"
	var e *Error
	if !errors.As(s.Validate([]byte(big)), &e) || len(e.Problems) != MaxProblems || e.Omitted != 401 {
		t.Fatalf("problems not bounded: %d listed, %d omitted", len(e.Problems), e.Omitted)
	}
}

func TestSchemaProblemOncePerPlace(t *testing.T) {
	_, err := Compile([]byte(`{"type":"objekt","properties":{"a":{"minimum":"x"}}}`))
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 2 {
		t.Fatalf("want one problem at /type and one at /properties/a/minimum, got %v", err)
	}
}
