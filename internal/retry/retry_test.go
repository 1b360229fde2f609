package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/record"
	"github.com/gwdash/gwdash/internal/reqlog"
)

func ok(cid string, completion int) string {
	return fmt.Sprintf(`{"id":"g","custom_id":%q,"response":{"status_code":200,"request_id":null,"body":{"id":"c","object":"chat.completion","created":1,"model":"m/x","choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null},"finish_reason":"stop","native_finish_reason":null,"logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":%d,"total_tokens":%d}}},"error":null}`, cid, completion, completion+1)
}

func failed(cid, typ string) string {
	return fmt.Sprintf(`{"id":"g","custom_id":%q,"response":null,"error":{"type":"x","message":"no","param":null,"error_type":%q}}`, cid, typ)
}

func data(t *testing.T, id, status string, created int64, rows ...string) *api.BatchData {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"object":"batch","endpoint":"/v1/chat/completions","model":"m/x","completion_window":"24h","status":%q,"created_at":%d,"finalized_at":null,"request_counts":{"total":%d,"completed":0,"failed":0},"usage":null,"results":[%s],"error":null}`,
		id, status, created, len(rows), strings.Join(rows, ","))
	if status != "completed" {
		body = strings.Replace(body, `"results":[`+strings.Join(rows, ",")+`]`, `"results":null`, 1)
	}
	d, err := api.ReadBatchData([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func input(ids ...string) *Input {
	in := &Input{Bodies: map[string]json.RawMessage{}, Source: "the request log"}
	for _, id := range ids {
		in.Bodies[id] = json.RawMessage(`{"model":"m/x","messages":[{"role":"user","content":"` + id + `"}],"max_tokens":50}`)
	}
	return in
}

// The plan: groups by error type, most rows first; the retryable types
// chosen by default, the others only when named; custom_ids unchanged, in
// the parent's order; a body's model follows --model; each refusal its
// own error.
func TestBuild(t *testing.T) {
	d := data(t, "p", "completed", 1, ok("a", 10), failed("b", "timeout"), failed("c", "content_policy_violation"), failed("d", "rate_limit_exceeded"),
		failed("e", "timeout"), ok("f", 30))
	in := input("a", "b", "c", "d", "e", "f")
	p, err := Build(d, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := GroupList(p.Groups); got != "timeout 2 · content_policy_violation 1 · rate_limit_exceeded 1" {
		t.Fatalf("groups %q", got)
	}
	var ids []string
	for _, r := range p.Requests {
		ids = append(ids, r.CustomID)
		if string(r.Body) != string(in.Bodies[r.CustomID]) {
			t.Fatalf("%s: body changed: %s", r.CustomID, r.Body)
		}
	}
	if strings.Join(ids, ",") != "b,d,e" || p.Groups[1].Chosen || !p.Groups[0].Chosen {
		t.Fatalf("chosen %v, groups %+v", ids, p.Groups)
	}

	p, err = Build(d, in, Options{Types: []string{"content_policy_violation"}, Model: "other/y"})
	if err != nil || len(p.Requests) != 1 || p.Requests[0].CustomID != "c" || p.Model != "other/y" {
		t.Fatalf("named type: %+v %v", p, err)
	}
	var body struct{ Model string }
	json.Unmarshal(p.Requests[0].Body, &body)
	if body.Model != "other/y" {
		t.Fatalf("the body's model stayed %q", body.Model)
	}

	var ut *UnknownTypeError
	if _, err := Build(d, in, Options{Types: []string{"image_too_large"}}); !errors.As(err, &ut) || !strings.Contains(err.Error(), "timeout 2") {
		t.Fatalf("unknown type: %v", err)
	}
	var ni *NoInputError
	if _, err := Build(d, nil, Options{}); !errors.As(err, &ni) || !strings.Contains(err.Error(), "pass --input FILE with the original JSON Lines") {
		t.Fatalf("no input: %v", err)
	}
	short := input("a", "b")
	short.Truncated = true
	if _, err := Build(d, short, Options{}); !errors.As(err, &ni) || !strings.Contains(err.Error(), "2 of the 3 rows to retry have no request in the request log (the log keeps a batch's requests up to 8 MiB)") {
		t.Fatalf("truncated input: %v", err)
	}
	file := input("a", "b", "c", "d", "e", "f", "zz")
	file.Source = "in.jsonl"
	var ie *InputError
	if _, err := Build(d, file, Options{}); !errors.As(err, &ie) || !strings.Contains(err.Error(), `custom_id "zz" is not a row of batch p`) {
		t.Fatalf("stray custom_id: %v", err)
	}
	var ns *NotSettledError
	if _, err := Build(data(t, "r", "in_progress", 1, ok("a", 1)), in, Options{}); !errors.As(err, &ns) {
		t.Fatalf("running: %v", err)
	}
	whole, _ := api.ReadBatchData([]byte(`{"id":"w","object":"batch","status":"failed","created_at":1,"request_counts":{"total":5,"completed":0,"failed":5},"results":[],"error":{"message":"validation failed"}}`))
	if _, err := Build(whole, in, Options{}); !errors.As(err, &ns) || !strings.Contains(err.Error(), "is failed without per-request results") {
		t.Fatalf("failed as a whole: %v", err)
	}
	if _, err := Build(data(t, "q", "completed", 1, ok("a", 1)), in, Options{}); !errors.Is(err, ErrNothingFailed) {
		t.Fatalf("nothing failed: %v", err)
	}
	var nc *NothingChosenError
	if _, err := Build(data(t, "q", "completed", 1, failed("c", "refusal")), in, Options{}); !errors.As(err, &nc) {
		t.Fatalf("only other types: %v", err)
	}
}

// The estimate: exact decimals (0.1 + 0.2 per token is not a float sum),
// output at the parent's average completion; at most the bodies' cap
// without one; unknown without a price or for a router.
func TestPrice(t *testing.T) {
	d := data(t, "p", "completed", 1, ok("a", 10), failed("b", "timeout"), failed("c", "server"), ok("f", 30))
	p, err := Build(d, input("a", "b", "c", "f"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Price(&api.Model{ID: "m/x", Pricing: map[string]string{"prompt": "0.0000001", "completion": "0.0000003"}})
	in := p.Estimate.InputTokens
	want, _ := new(big.Rat).Add(new(big.Rat).Mul(big.NewRat(1, 10_000_000), big.NewRat(in, 1)), new(big.Rat).Mul(big.NewRat(3, 10_000_000), big.NewRat(40, 1))).Float64()
	if !p.Estimate.Known || p.Estimate.OutputTokens != 40 || p.Estimate.AtMost || p.Estimate.Cost != want {
		t.Fatalf("estimate %+v, want cost %v", p.Estimate, want)
	}
	if !strings.HasPrefix(p.Estimate.String(), "about $") {
		t.Fatalf("%q", p.Estimate.String())
	}
	p.Price(nil)
	if p.Estimate.Known || !strings.Contains(p.Estimate.String(), "not in the catalogue") {
		t.Fatalf("%+v", p.Estimate)
	}
	p.Price(&api.Model{ID: "m/x", Pricing: map[string]string{"prompt": "-1", "completion": "-1"}})
	if p.Estimate.Known || !strings.Contains(p.Estimate.Why, "router") {
		t.Fatalf("%+v", p.Estimate)
	}
	d = data(t, "p", "completed", 1, failed("b", "timeout"))
	p, _ = Build(d, input("b"), Options{})
	p.Price(&api.Model{ID: "m/x", Pricing: map[string]string{"prompt": "0", "completion": "0.000001"}})
	if !p.Estimate.AtMost || p.Estimate.OutputTokens != 50 || !strings.HasPrefix(p.Estimate.String(), "at most $0.00005") {
		t.Fatalf("no average: %+v %q", p.Estimate, p.Estimate.String())
	}
}

// Effective results: each row's latest attempt, whatever order the
// retries come in; a running retry counts as pending; succeeded + failed
// = the parent's rows; rows a retry has that the parent has not are not
// counted.
func TestEffective(t *testing.T) {
	parent := data(t, "p", "completed", 100, ok("a", 1), failed("b", "timeout"), failed("c", "timeout"), failed("d", "refusal"))
	first := data(t, "c1", "completed", 200, ok("b", 1), failed("c", "server"), ok("zz", 1))
	second := data(t, "c2", "completed", 300, ok("c", 1))
	running := data(t, "c3", "in_progress", 400)
	ed, c, err := Effective(parent, []*api.BatchData{second, running, first})
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Total: 4, Succeeded: 3, Failed: 1, FromRetries: 2, Recovered: 2, Attempts: 2, Pending: 1}
	if c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
	if len(ed.Rows) != 4 || ed.Rows[2].Failed || !ed.Rows[3].Failed || ed.Batch.ID != "p" || ed.Batch.RequestCounts.Completed != 3 {
		t.Fatalf("rows %+v", ed.Rows)
	}
	if s := c.Summary(); s != "4 rows · 3 succeeded · 1 failed · 2 answered by 2 retries (2 recovered) · 1 still running" {
		t.Fatalf("summary %q", s)
	}
}

// Descendants follow retries of retries, oldest first, bounded, and a
// record that loops does not loop them.
func TestDescendants(t *testing.T) {
	recs := []record.Batch{{ID: "c2", RetryOf: "c1", CreatedAt: 30}, {ID: "c1", RetryOf: "p", CreatedAt: 20}, {ID: "x", RetryOf: "other"},
		{ID: "p", RetryOf: "c2"}, {ID: "c3", RetryOf: "p", CreatedAt: 25}}
	var ids []string
	for _, r := range Descendants(recs, "p") {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "c1,c3,c2" {
		t.Fatalf("descendants %v", ids)
	}
	var many []record.Batch
	for i := 0; i < 100; i++ {
		many = append(many, record.Batch{ID: fmt.Sprint("b", i), RetryOf: "p"})
	}
	if n := len(Descendants(many, "p")); n != MaxAttempts {
		t.Fatalf("%d descendants", n)
	}
}

// The log keeps a submitted batch's requests for a retry: as many whole
// requests as its bound holds, saying when it kept fewer; a batch it did
// not see is ErrNotKept.
func TestKeptBatchRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.db")
	rec := reqlog.Start(reqlog.Options{Path: path})
	small := []api.BatchRequest{{CustomID: "a", Body: json.RawMessage(`{"messages":[]}`)}, {CustomID: "b", Body: json.RawMessage(`{"x":"\u001b"}`)}}
	rec.Batch("/v1/chat/completions", "m/x", small, &api.Batch{ID: "batch-small"}, nil)
	big := make([]api.BatchRequest, 10)
	for i := range big {
		big[i] = api.BatchRequest{CustomID: fmt.Sprint("r", i), Body: json.RawMessage(`{"pad":"` + strings.Repeat("x", 1<<20) + `"}`)}
	}
	rec.Batch("/v1/chat/completions", "m/x", big, &api.Batch{ID: "batch-big"}, nil)
	rec.Close(10 * time.Second)
	db, _, err := reqlog.OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	k, err := db.KeptBatch(context.Background(), "batch-small")
	if err != nil || k.Truncated || len(k.Requests) != 2 || string(k.Requests[1].Body) != `{"x":"\u001b"}` || k.Model != "m/x" {
		t.Fatalf("small: %+v %v", k, err)
	}
	k, err = db.KeptBatch(context.Background(), "batch-big")
	if err != nil {
		t.Fatal(err)
	}
	if !k.Truncated || k.Total != 10 || len(k.Requests) == 0 || len(k.Requests) >= 10 {
		t.Fatalf("big: truncated %v, %d of %d, %v", k.Truncated, len(k.Requests), k.Total, err)
	}
	var nk *reqlog.ErrNotKept
	if _, err := db.KeptBatch(context.Background(), "batch-other"); !errors.As(err, &nk) {
		t.Fatalf("other: %v", err)
	}
}
