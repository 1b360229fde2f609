package hostile

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The wrapped server is hostile where it must be and only there: every
// string member of a JSON answer and of an event's data gets String
// (member names of open maps too), the discriminators stay, the headers
// gwdash reads get HeaderString, a body the client sends back is cleaned,
// and what is not JSON passes as it is.
func TestWrapMakesAnswersHostileAndCleansRequests(t *testing.T) {
	var gotBody string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.Header().Set("X-Generation-Id", "gen-1")
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"type":"x","id":"a","n":1,"config":{"url":"u"}}`)
		case "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "event: e\ndata: {\"type\":\"t\",\"delta\":\"d\"}\n\ndata: [DONE]\n\n")
		default:
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "plain")
		}
	})
	srv := httptest.NewServer(Wrap(inner, Options{}))
	defer srv.Close()
	get := func(path, body string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	sent, _ := json.Marshal(map[string]string{"id": "a" + String})
	resp, body := get("/json", string(sent))
	if gotBody != `{"id":"a"}` {
		t.Errorf("request body not cleaned: %q", gotBody)
	}
	for _, want := range []string{`"type":"x"`, `"n":1`} {
		if !strings.Contains(body, want) {
			t.Errorf("%s changed: %q", want, body)
		}
	}
	if strings.Count(body, "pwned-title") != 3 { // id, the config member's name and its value
		t.Errorf("not every string is hostile: %q", body)
	}
	if resp.Header.Get("X-Generation-Id") != "gen-1"+HeaderString || resp.ContentLength != int64(len(body)) {
		t.Errorf("headers: %q, length %d of %d", resp.Header.Get("X-Generation-Id"), resp.ContentLength, len(body))
	}

	resp, body = get("/sse", "")
	if !strings.Contains(body, `"type":"t"`) || strings.Count(body, "pwned-title") != 1 || !strings.Contains(body, "data: [DONE]\n\n") {
		t.Errorf("events: %q", body)
	}
	if resp.Header.Get("X-Generation-Id") != "gen-1"+HeaderString {
		t.Errorf("stream headers: %q", resp.Header.Get("X-Generation-Id"))
	}

	if _, body = get("/plain", ""); body != "plain" {
		t.Errorf("plain text changed: %q", body)
	}
}
