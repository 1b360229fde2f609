package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/hostile"
)

func wrapped(t *testing.T, wrap func(http.Handler) http.Handler) *harness {
	t.Helper()
	return newHarness(t, gateway.Options{BatchDuration: 200 * time.Millisecond, PaymentPolls: 1, GenerationDelay: time.Nanosecond, Wrap: wrap})
}

// 6. Every --json output re-encodes every string it prints, unknown
// members included: no raw control byte, C1 control or invalid UTF-8
// reaches stdout, and the unknown member is there, escaped.
func TestJSONOutputHasNoRawControl(t *testing.T) {
	h := wrapped(t, hostile.Controls)
	seed := h.srv.SeedID
	dest := h.srv.DestinationID("prod-langfuse")
	h.run("", "respond", "warm up", "--model", "openai/gpt-4o-mini")
	for _, args := range [][]string{
		{"batch", "get", seed(gateway.SeedChat), "--json"},
		{"batch", "list", "--json"},
		{"batch", "list", "--all", "--json"},
		{"batch", "results", seed(gateway.SeedChat)},
		{"dest", "get", dest, "--json"},
		{"dest", "list", "--json"},
		{"dest", "list", "--all", "--json"},
		{"dest", "update", dest, "--name", "x", "--json"},
		{"models", "--json", "--refresh"},
		{"key", "--json"},
		{"generation", h.srv.LastGeneration(), "--json"},
		{"respond", "hello", "--model", "openai/gpt-4o-mini", "--json"},
		{"respond", "hello", "--model", "openai/gpt-4o-mini", "--no-stream", "--json"},
		{"respond", "hello", "--model", "openai/gpt-4o-mini", "--model", gateway.ModelEscapes, "--json"},
	} {
		r := h.run("", args...)
		if bad := hostile.RawControl(r.out + r.err); bad != "" {
			t.Fatalf("%v printed %s:\n%q", args, bad, r.out)
		}
		if (r.code != 0 || !strings.Contains(r.out, hostile.ControlMember)) && args[0] != "respond" && args[0] != "models" && args[0] != "generation" {
			t.Fatalf("%v: the unknown member is gone (exit %d):\n%s\n%s", args, r.code, r.out, r.err)
		}
		if r.code == 0 && (args[1] == "get" || args[0] == "key") && !strings.Contains(r.out, `\r`) {
			t.Fatalf("%v: a CR must stay, escaped:\n%s", args, r.out)
		}
	}
}

// 8. Ids: "." and ".." never go out as dot segments; a 4 KiB id is
// refused with a clear message before any request.
func TestIDsEscapedAndBounded(t *testing.T) {
	var paths hostile.Paths
	h := wrapped(t, paths.Record)
	for _, id := range hostile.DotIDs {
		h.run("", "batch", "get", id)
		h.run("", "dest", "get", id)
		h.run("", "batch", "delete", id, "--yes")
	}
	for _, p := range paths.Seen() {
		if hostile.DotSegment(p) {
			t.Fatalf("a dot segment went out: %q", p)
		}
	}
	n := len(paths.Seen())
	for _, args := range [][]string{{"batch", "get", hostile.LongID}, {"batch", "watch", hostile.LongID}, {"dest", "get", hostile.LongID}, {"batch", "delete", hostile.LongID, "--yes"}} {
		r := h.run("", args...)
		if r.code != 2 || !strings.Contains(r.err, "at most 256 bytes") && !strings.Contains(r.err, "must be a UUID") || len(r.err) > 400 {
			t.Fatalf("%v: exit %d: %q", args[:2], r.code, r.err)
		}
	}
	if len(paths.Seen()) != n {
		t.Fatalf("%d requests went out with a 4 KiB id", len(paths.Seen())-n)
	}
}

// 9. `batch list` and `batch get` read duplicate and case-variant names
// one way: both refuse the answer, naming the member.
func TestDuplicateMembersSameInListAndGet(t *testing.T) {
	for _, exact := range []bool{false, true} {
		h := wrapped(t, func(x http.Handler) http.Handler { return hostile.DuplicateMembers(x, exact) })
		id := h.srv.SeedID(gateway.SeedChat)
		for _, args := range [][]string{{"batch", "list"}, {"batch", "get", id}, {"batch", "get", id, "--json"}, {"batch", "results", id}} {
			r := h.run("", args...)
			if r.code != 1 || !strings.Contains(r.err, "twice in one object") || strings.Contains(r.out, "failed") {
				t.Fatalf("exact %v: %v: exit %d\nstdout: %s\nstderr: %s", exact, args, r.code, r.out, r.err)
			}
		}
	}
}

// 10. A destination secret the server sends in clear is never printed,
// on stdout or stderr, with or without --json, nor stored.
func TestServerSecretNeverPrintedOrStored(t *testing.T) {
	h := wrapped(t, hostile.Secrets)
	dest := h.srv.DestinationID("prod-langfuse")
	for _, args := range [][]string{
		{"dest", "get", dest}, {"dest", "get", dest, "--json"}, {"dest", "list"}, {"dest", "list", "--json"}, {"dest", "list", "--all", "--json"},
		{"dest", "update", dest, "--name", "renamed"}, {"dest", "update", dest, "--sampling-rate", "0.5", "--json"},
		{"dest", "create", "--type", "webhook", "--name", "hook", "--set", "url=https://h.example", "--set", "authToken=abcdefghijklmnop", "--json"},
	} {
		r := h.run("", args...)
		if strings.Contains(r.out+r.err, hostile.ClearSecret) || strings.Contains(r.out+r.err, "abcdefghijklmnop") {
			t.Fatalf("%v printed a secret:\n%s\n%s", args, r.out, r.err)
		}
	}
	filepath.Walk(h.env["HOME"], func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), hostile.ClearSecret) {
				t.Fatalf("%s stores a secret", p)
			}
		}
		return nil
	})
}

// 11. A wait before a retry is told on stderr, with the bound.
func TestWaitsAreTold(t *testing.T) {
	var conf *hostile.Conflicts
	h := wrapped(t, func(x http.Handler) http.Handler {
		conf = &hostile.Conflicts{H: x, Method: http.MethodPatch, N: 1, RetryAfter: "0"}
		return conf
	})
	r := h.run("", "dest", "update", h.srv.DestinationID("prod-langfuse"), "--name", "y")
	if r.code != 0 || !strings.Contains(r.err, "retrying in") || !strings.Contains(r.err, "attempt 2 of 4") || !strings.Contains(r.err, "gives up after 5m") {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if n := strings.Count(r.err, "retrying in"); n != 1 {
		t.Fatalf("one wait told %d times (its end is the dashboard's only): %s", n, r.err)
	}
}

// 12. The record and its lock are never opened through a symbolic link:
// a link planted there (to a file, or dangling) is left alone.
func TestStateFilesNeverFollowLinks(t *testing.T) {
	for _, name := range []string{"record.json", "record.json.lock"} {
		for _, dangling := range []bool{false, true} {
			h := newHarness(t, gateway.Options{})
			dir := filepath.Join(h.env["XDG_STATE_HOME"], "gwdash")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			victim, content, err := hostile.SymlinkTrap(filepath.Join(dir, name), dangling)
			if err != nil {
				t.Fatal(err)
			}
			h.run("", "batch", "get", h.srv.SeedID(gateway.SeedChat))
			h.run("", "dest", "get", h.srv.DestinationID("prod-langfuse"))
			b, err := os.ReadFile(victim)
			if dangling && !os.IsNotExist(err) || !dangling && string(b) != string(content) {
				t.Fatalf("%s (dangling %v): the file behind the link was written or created: %q %v", name, dangling, b, err)
			}
			if st, err := os.Lstat(filepath.Join(dir, "record.json")); err == nil && st.Mode().IsRegular() && st.Mode().Perm() != 0o600 {
				t.Fatalf("record mode %v", st.Mode().Perm())
			}
		}
	}
}

// 13. Absurd numbers print within a fixed width: a 1e300 limit reads "no
// practical limit", costs of 300 digits are short, hex floats in headers
// are not numbers.
func TestAbsurdNumbersStayNarrow(t *testing.T) {
	h := newHarness(t, gateway.Options{KeyLimit: 10, GenerationDelay: time.Nanosecond, Wrap: hostile.Numbers})
	h.run("", "respond", "warm up", "--model", "openai/gpt-4o-mini")
	for _, args := range [][]string{
		{"key"}, {"batch", "get", h.srv.SeedID(gateway.SeedChat)}, {"batch", "list"}, {"generation", h.srv.LastGeneration()},
		{"respond", "hello", "--model", "openai/gpt-4o-mini"}, {"respond", "hello", "--model", "openai/gpt-4o-mini", "--no-stream"},
	} {
		r := h.run("", args...)
		for _, l := range strings.Split(r.out+r.err, "\n") {
			if utf8.RuneCountInString(l) > 200 {
				t.Fatalf("%v: a line of %d runes: %q", args, utf8.RuneCountInString(l), l)
			}
		}
		if args[0] == "key" && !strings.Contains(r.out, "no practical limit") {
			t.Fatalf("key: %s\n%s", r.out, r.err)
		}
	}
}
