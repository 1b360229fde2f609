package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// submitRows submits n chat rows to a gateway served over HTTP and
// returns the batch id.
func submitRows(t *testing.T, base string, n int, prefix string) string {
	t.Helper()
	var rows []string
	for i := 0; i < n; i++ {
		rows = append(rows, fmt.Sprintf(`{"custom_id":"%s-%04d","body":{"messages":[{"role":"user","content":"q%d"}]}}`, prefix, i, i))
	}
	body := `{"endpoint":"/v1/chat/completions","model":"openai/gpt-4o-mini","requests":[` + strings.Join(rows, ",") + `]}`
	var b struct{ ID string }
	if code := httpJSON(t, "POST", base+"/api/v1/batches", body, &b); code != 202 {
		t.Fatalf("submit: %d", code)
	}
	return b.ID
}

func httpJSON(t *testing.T, method, url, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+DemoAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		decodeBody(t, raw, out)
	}
	return resp.StatusCode
}

type settledBatch struct {
	Status string `json:"status"`
	Counts struct {
		Total, Completed, Failed int
	} `json:"request_counts"`
	Results []struct {
		CustomID string          `json:"custom_id"`
		Response json.RawMessage `json:"response"`
		Error    *struct {
			Type      string  `json:"type"`
			Message   string  `json:"message"`
			Param     *string `json:"param"`
			ErrorType string  `json:"error_type"`
		} `json:"error"`
	} `json:"results"`
}

// failedOf maps each failed custom_id to its error type.
func (b settledBatch) failedOf() map[string]string {
	m := map[string]string{}
	for _, r := range b.Results {
		if r.Error != nil {
			m[r.CustomID] = r.Error.ErrorType
		}
	}
	return m
}

// A submitted batch fails a realistic share of its rows with several
// error types, retryable and not; its counts agree with its results all
// along; the same batch reads the same, a gateway of the same seed fails
// the same rows, and another batch of the same rows (a retry) meets
// other failures.
func TestSubmittedBatchesFailSomeRows(t *testing.T) {
	ck := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	serve := func() string {
		g := New(Options{Now: ck.now, BatchDuration: time.Minute, Seed: 7})
		srv := httptest.NewServer(g)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	base := serve()
	const n = 600
	id := submitRows(t, base, n, "row")
	// Mid-way, the counts grow toward what the results will say.
	ck.t = ck.t.Add(30 * time.Second)
	var mid settledBatch
	httpJSON(t, "GET", base+"/api/v1/batches/"+id, "", &mid)
	ck.t = ck.t.Add(time.Minute)
	var b settledBatch
	httpJSON(t, "GET", base+"/api/v1/batches/"+id, "", &b)
	if b.Status != "completed" || len(b.Results) != n || b.Counts.Total != n {
		t.Fatalf("settled: %s, %d results, total %d", b.Status, len(b.Results), b.Counts.Total)
	}
	failed := b.failedOf()
	if b.Counts.Failed != len(failed) || b.Counts.Completed != n-len(failed) {
		t.Fatalf("counts %+v, %d failed results", b.Counts, len(failed))
	}
	if mid.Status != "in_progress" || mid.Counts.Failed > b.Counts.Failed || mid.Counts.Completed > b.Counts.Completed || mid.Counts.Completed+mid.Counts.Failed == 0 {
		t.Fatalf("mid-way counts %s %+v, final %+v", mid.Status, mid.Counts, b.Counts)
	}
	if share := float64(len(failed)) / n; share < 0.04 || share > 0.17 {
		t.Fatalf("%d of %d rows failed (%.1f%%): not a realistic share", len(failed), n, share*100)
	}
	retryable := map[string]bool{"rate_limit_exceeded": true, "provider_overloaded": true, "timeout": true, "server": true}
	kinds := map[string]int{}
	var retryKinds, otherKinds int
	for _, r := range b.Results {
		e := r.Error
		if e == nil {
			continue
		}
		if e.Type == "" || e.Message == "" || e.ErrorType == "" || string(r.Response) != "null" {
			t.Fatalf("a failure must carry type, message and error_type, and no response: %+v", r)
		}
		if kinds[e.ErrorType]++; kinds[e.ErrorType] == 1 {
			if retryable[e.ErrorType] {
				retryKinds++
			} else {
				otherKinds++
			}
		}
	}
	if retryKinds < 3 || otherKinds < 2 {
		t.Fatalf("error types %v: want at least three retryable kinds and two that are not", kinds)
	}
	// Read again: the same failures.
	var again2 settledBatch
	httpJSON(t, "GET", base+"/api/v1/batches/"+id, "", &again2)
	if fmt.Sprint(again2.failedOf()) != fmt.Sprint(failed) {
		t.Fatal("the same batch read twice failed other rows")
	}
	// Another gateway of the same seed, a minute later on the clock: the
	// same rows fail the same way.
	ck.t = ck.t.Add(time.Hour)
	other := serve()
	id2 := submitRows(t, other, n, "row")
	ck.t = ck.t.Add(2 * time.Minute)
	var b2 settledBatch
	httpJSON(t, "GET", other+"/api/v1/batches/"+id2, "", &b2)
	if id2 == id || fmt.Sprint(b2.failedOf()) != fmt.Sprint(failed) {
		t.Fatalf("same seed, same rows: the failures differ (%s vs %s)", id, id2)
	}
	// A second batch of the same rows on the first gateway: other failures.
	id3 := submitRows(t, base, n, "row")
	ck.t = ck.t.Add(2 * time.Minute)
	var b3 settledBatch
	httpJSON(t, "GET", base+"/api/v1/batches/"+id3, "", &b3)
	if fmt.Sprint(b3.failedOf()) == fmt.Sprint(failed) {
		t.Fatal("a retry of the same rows met exactly the same failures")
	}
	// Most answers are the same in both, some (a quarter) differ.
	same, differ := 0, 0
	for i, r := range b.Results {
		if r.Error != nil || b3.Results[i].Error != nil {
			continue
		}
		if string(r.Response) == string(b3.Results[i].Response) {
			same++
		} else {
			differ++
		}
	}
	if differ == 0 || same < 2*differ {
		t.Fatalf("answers of two batches of the same rows: %d same, %d differ", same, differ)
	}
}
