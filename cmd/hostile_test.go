package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

// newHostileHarness serves the gateway through hostile.Wrap: every string
// of every answer carries terminal escape sequences.
func newHostileHarness(t *testing.T, o hostile.Options) *harness {
	t.Helper()
	return newHarness(t, gateway.Options{BatchDuration: 200 * time.Millisecond, PaymentPolls: 1, GenerationDelay: time.Nanosecond,
		Wrap: func(h http.Handler) http.Handler { return hostile.Wrap(h, o) }})
}

// TestHostileServerNeverReachesTheTerminal runs every headless command
// against a hostile server and checks every byte printed, on stdout and
// stderr, with and without --json.
func TestHostileServerNeverReachesTheTerminal(t *testing.T) {
	for _, o := range []hostile.Options{{}, {CleanStatus: true}} {
		h := newHostileHarness(t, o)
		seed := h.srv.SeedID
		dest := h.srv.DestinationID("prod-langfuse")
		jsonl := filepath.Join(t.TempDir(), "reqs.jsonl")
		writeFile(t, jsonl, `{"custom_id":"a","body":{"messages":[]}}`+"\n"+`{"custom_id":"b","body":{}}`+"\n")
		runs := [][]string{
			{"batch", "get", seed(gateway.SeedChat)},
			{"batch", "get", seed(gateway.SeedChat), "--json"},
			{"batch", "get", seed(gateway.SeedFailed)},
			{"batch", "get", seed(gateway.SeedPayment)},
			{"batch", "get", seed(gateway.SeedOld)},
			{"batch", "get", seed(gateway.SeedRateLimit)},
			{"batch", "get", "batch-0-missing"},
			{"batch", "watch", seed(gateway.SeedRunning), "--interval", "20ms", "--timeout", "5s"},
			{"batch", "watch", seed(gateway.SeedFlaky502), "--interval", "20ms", "--timeout", "5s"},
			{"batch", "results", seed(gateway.SeedChat)},
			{"batch", "results", seed(gateway.SeedChat), "--failed"},
			{"batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions"},
			{"batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions", "--json"},
			{"respond", "hello", "--model", "openai/gpt-4o-mini"},
			{"respond", "hello", "--model", "openai/gpt-4o-mini", "--no-stream"},
			{"respond", "hello", "--model", "openai/gpt-4o-mini", "--json", "--routing-metadata"},
			{"respond", "hello", "--model", "openai/gpt-4o-mini", "--max-output-tokens", "5"},
			{"respond", "hello", "--model", gateway.ModelFailMidstream},
			{"respond", "hello", "--model", gateway.ModelErrorEvent},
			{"respond", "hello", "--model", gateway.ModelDrop},
			{"respond", "hello", "--model", gateway.ModelRefusal},
			{"respond", "hello", "--model", gateway.ModelEscapes},
			{"respond", "hello", "--model", gateway.ModelRateLimited},
			{"dest", "list"},
			{"dest", "list", "--all"},
			{"dest", "list", "--all", "--json"},
			{"dest", "list", "--json"},
			{"dest", "update", dest, "--enabled=false"},
			{"dest", "update", dest, "--name", "x", "--json"},
			{"dest", "update", h.srv.DestinationID(gateway.BrokenDestination), "--enabled=true"},
			{"dest", "get", dest},
			{"dest", "get", dest, "--json"},
			{"dest", "create", "--type", "webhook", "--name", "hook", "--set", "url=https://h.example"},
			{"dest", "create", "--type", "webhook", "--name", "hook2", "--set", "url=https://h.example", "--json"},
			{"dest", "delete", h.srv.DestinationID("eu-datadog"), "--yes"},
			{"batch", "list"},
			{"batch", "list", "--all", "--json"},
			{"batch", "list", "--status", "completed"},
			{"batch", "delete", seed(gateway.SeedExpired), "--yes"},
			{"batch", "delete", seed(gateway.SeedValidating), "--yes"},
			{"models"},
			{"models", "--json", "--refresh"},
			{"key"},
			{"key", "--json"},
			{"credits"},
			{"credits", "--json"},
			{"respond", "hello", "--model", "openai/gpt-4o-mini", "--model", gateway.ModelFailMidstream},
			{"respond", "hello", "--model", "openai/gpt-4o-mini", "--model", gateway.ModelEscapes, "--json"},
			{"batch", "diff", seed(gateway.SeedChat), seed(gateway.SeedCancelled)},
			{"batch", "diff", seed(gateway.SeedChat), seed(gateway.SeedCancelled), "--json"},
			{"batch", "export", seed(gateway.SeedChat), "--format", "csv"},
			{"batch", "export", seed(gateway.SeedChat), "--format", "jsonl"},
			{"batch", "results", seed(gateway.SeedChat), "--effective"},
			{"models", "endpoints", "openai/gpt-4o-mini"},
			{"models", "endpoints", "openai/gpt-4o-mini", "--json"},
		}
		h.run("", "respond", "warm up", "--model", "openai/gpt-4o-mini")
		runs = append(runs, []string{"generation", h.srv.LastGeneration()}, []string{"generation", h.srv.LastGeneration(), "--json"})
		// A destination seen here, then changed: the conflict table.
		h.run("", "dest", "get", dest)
		h.srv.EditDestination(dest, func(name *string, rate *float64) { *name = "changed" })
		runs = append(runs, []string{"dest", "update", dest, "--sampling-rate", "0.3"})
		for _, args := range runs {
			r := h.run("", args...)
			if bad := hostile.Found(r.out + r.err); bad != "" {
				t.Fatalf("status kept clean: %v; %v printed %q:\nstdout: %q\nstderr: %q", o.CleanStatus, args, bad, r.out, r.err)
			}
			if r.code != 0 && r.code != 1 {
				t.Fatalf("%v: exit %d\n%s", args, r.code, r.err)
			}
		}
		// The odd text stays visible, inert.
		r := h.run("", "batch", "get", seed(gateway.SeedChat))
		if !strings.Contains(r.out, "␛]0;pwned-title␇") {
			t.Fatalf("hostile text must show inert:\n%s", r.out)
		}
		// An unknown status is said to be one.
		if !o.CleanStatus && !strings.Contains(r.out, "unknown status") {
			t.Fatalf("a hostile status must read as unknown:\n%s", r.out)
		}
	}
}

// An HTML error page and header values from a hostile proxy stay inert.
func TestHostileProxyErrorsStayInert(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Retry-After", "5"+hostile.HeaderString)
		w.WriteHeader(502)
		io.WriteString(w, "<html><title>"+hostile.String+"</title><body>Bad gateway"+hostile.String+"</body></html>")
	}))
	defer srv.Close()
	h := newHarness(t, gateway.Options{})
	h.env["GWDASH_BASE_URL"] = srv.URL
	for _, args := range [][]string{{"batch", "get", "b"}, {"respond", "x", "--model", "a/b"}, {"dest", "list"}, {"batch", "watch", "b", "--timeout", "2s"}} {
		r := h.run("", args...)
		if bad := hostile.Found(r.out + r.err); bad != "" || !strings.Contains(r.err, "HTTP 502") {
			t.Fatalf("%v printed %q or no status:\n%q", args, bad, r.err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
