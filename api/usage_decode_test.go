package api

import "testing"

// The fast decoder must inline BatchUsage's embedded Usage as
// encoding/json does.
func TestBatchUsageDecodesEmbeddedMembers(t *testing.T) {
	var b Batch
	type plain Batch
	if err := decode([]byte(`{"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"cost":0.5,"service_tier":"flex"}}`), (*plain)(&b)); err != nil {
		t.Fatal(err)
	}
	u := b.Usage
	if u == nil || u.PromptTokens != 3 || u.TotalTokens != 7 || u.Cost == nil || *u.Cost != 0.5 || *u.ServiceTier != "flex" {
		t.Fatalf("%+v", u)
	}
	// duplicate names and invalid UTF-8 are accepted, as encoding/json does
	var m map[string]string
	if err := decode([]byte("{\"a\":\"x\",\"a\":\"\xff\"}"), &m); err != nil {
		t.Fatal(err)
	}
}
