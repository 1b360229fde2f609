package cmd

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwdash/gwdash/internal/gateway"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// logRows runs logs --json and decodes its lines.
func (h *harness) logRows(args ...string) []map[string]any {
	h.t.Helper()
	r := h.run("", append([]string{"logs", "--json"}, args...)...)
	r.must(h.t, 0, nil, nil)
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			h.t.Fatalf("logs --json line %q: %v", l, err)
		}
		rows = append(rows, m)
	}
	return rows
}

func (h *harness) logPath() string {
	return filepath.Join(h.env["XDG_STATE_HOME"], "gwdash", reqlog.FileName)
}

func id(m map[string]any) string { return strconv.Itoa(int(m["id"].(float64))) }

func TestRespondIsLoggedAndShown(t *testing.T) {
	h := newHarness(t, gateway.Options{TokensPerSecond: 400})
	h.run("", "logs").must(t, 1, nil, []string{"no request has been logged yet"})
	r := h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--instructions", "be brief", "--temperature", "0.5")
	r.must(t, 0, nil, []string{"completed"})
	rows := h.logRows()
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	row := rows[0]
	for _, k := range []string{"id", "time", "kind", "model", "provider", "input_tokens", "output_tokens", "cost", "ttft_ms", "tokens_per_second", "state", "input"} {
		if _, ok := row[k]; !ok {
			t.Errorf("logs --json lacks %s", k)
		}
	}
	if row["kind"] != "response" || row["state"] != "completed" || row["input"] != "Explain routing" || row["cost"] == nil || row["ttft_ms"] == nil || row["output_tokens"] == nil {
		t.Fatalf("row %v", row)
	}
	show := h.run("", "logs", "show", id(row), "--json")
	show.must(t, 0, nil, nil)
	var full map[string]any
	if err := json.Unmarshal([]byte(show.out), &full); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"answer", "replay_of", "compare_group", "conversation_id", "batch_id", "generation"} {
		if _, ok := full[k]; !ok {
			t.Errorf("logs show --json lacks %s", k)
		}
	}
	if full["answer"].(string)+"\n" != r.out || full["instructions"] != "be brief" || full["request"].(map[string]any)["temperature"] != 0.5 {
		t.Fatalf("show: answer %q (stdout %q) request %v", full["answer"], r.out, full["request"])
	}
	h.run("", "logs", "show", id(row)).must(t, 0, []string{"openai/gpt-4o-mini", "completed", "── input ──", "Explain routing", "── answer ──", "── request ──"}, nil)
	h.run("", "logs", "show", "999").must(t, 2, nil, []string{"no request 999"})
	h.run("", "logs", "show", "x").must(t, 2, nil, []string{"not a row id"})

	// The file: 0600, and no key in it.
	st, err := os.Stat(h.logPath())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("log file: %v %v", st, err)
	}
	for _, f := range []string{h.logPath(), h.logPath() + "-wal"} {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(gateway.DemoAPIKey)) || bytes.Contains(b, []byte(gateway.DemoManagementKey)) {
			t.Fatalf("a key is stored in %s", f)
		}
	}
	h.run("", "logs", "path").must(t, 0, []string{h.logPath()}, nil)
}

func TestLogIsOffWithTheFlagOrTheProfile(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "one", "--model", "openai/gpt-4o-mini", "--no-log").must(t, 0, nil, nil)
	h.run("", "logs").must(t, 1, nil, []string{"no request has been logged yet"})
	h.run("", "config", "set", "log", "maybe").must(t, 2, nil, []string{"log must be on or off"})
	h.run("", "config", "set", "log", "false").must(t, 0, nil, []string{"wrote log"})
	h.run("", "config", "show").must(t, 0, []string{"log", "off", "file [profiles.default]"}, nil)
	h.run("", "respond", "two", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	h.run("", "logs").must(t, 1, nil, []string{"no request has been logged yet"})
	h.run("", "config", "set", "log", "true").must(t, 0, nil, nil)
	h.run("", "respond", "three", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	if rows := h.logRows(); len(rows) != 1 || rows[0]["input"] != "three" {
		t.Fatalf("rows %v", rows)
	}
}

func TestCompareReplayAndReraceAreLinked(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini", "--model", "anthropic/claude-sonnet-4").must(t, 0, nil, nil)
	rows := h.logRows()
	if len(rows) != 2 {
		t.Fatalf("%d rows for a comparison of two", len(rows))
	}
	groups := map[string]bool{}
	for _, r := range rows {
		var full map[string]any
		json.Unmarshal([]byte(h.run("", "logs", "show", id(r), "--json").out), &full)
		groups[full["compare_group"].(string)] = true
	}
	if len(groups) != 1 || groups[""] {
		t.Fatalf("compare groups %v", groups)
	}
	old := id(rows[0])
	r := h.run("", "logs", "replay", old, "--model", "meta-llama/llama-3.1-70b-instruct")
	r.must(t, 0, nil, []string{"completed"})
	var sent map[string]any
	reqs := h.srv.RequestsTo("POST", "/api/v1/responses")
	json.Unmarshal(reqs[len(reqs)-1].Body, &sent)
	if sent["model"] != "meta-llama/llama-3.1-70b-instruct" || sent["input"] != "Explain routing" {
		t.Fatalf("replay sent %v", sent)
	}
	latest := h.logRows("--limit", "1")[0]
	var full map[string]any
	json.Unmarshal([]byte(h.run("", "logs", "show", id(latest), "--json").out), &full)
	if strconv.Itoa(int(full["replay_of"].(float64))) != old {
		t.Fatalf("replay_of %v, want %s", full["replay_of"], old)
	}
	// A re-race: two models at once, both replaying the row.
	h.run("", "logs", "replay", old, "--model", "openai/gpt-4o-mini", "--model", "anthropic/claude-sonnet-4").must(t, 0, []string{"── openai/gpt-4o-mini ── completed"}, nil)
	for _, r := range h.logRows("--limit", "2") {
		var f map[string]any
		json.Unmarshal([]byte(h.run("", "logs", "show", id(r), "--json").out), &f)
		if f["replay_of"] == nil || strconv.Itoa(int(f["replay_of"].(float64))) != old || f["compare_group"] == "" {
			t.Fatalf("re-race row %v", f)
		}
	}
	before := len(h.srv.Requests())
	h.run("", "logs", "replay", old, "--model", "nope").must(t, 2, nil, []string{"model"})
	h.run("", "logs", "replay", "4242").must(t, 2, nil, []string{"no request 4242"})
	if len(h.srv.Requests()) != before {
		t.Fatal("a refused replay reached the server")
	}
}

func TestLogsSearchFiltersAndRefusals(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "Explain zebrafish routing", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	h.run("", "respond", "Summarize quokka latency", "--model", "anthropic/claude-sonnet-4").must(t, 0, nil, nil)
	h.run("", "respond", "x", "--model", gateway.ModelFailMidstream).must(t, 1, nil, nil)
	h.run("", "respond", "x", "--model", gateway.ModelRateLimited).must(t, 1, nil, nil)
	count := func(args ...string) int { return len(h.logRows(args...)) }
	cases := map[string]int{
		"":                   4,
		"--search zebrafish": 1,
		"--search zebr":      1,
		"--model claude":     1,
		"--state failed":     1,
		"--state no answer":  1,
		"--since 1h":         4,
		"--until 2000-01-01": 0,
		"--limit 2":          2,
		"--kind batch":       0,
	}
	costed := 0
	for _, r := range h.logRows() {
		if r["cost"] != nil && r["cost"].(float64) > 0 {
			costed++
		}
	}
	cases["--min-cost 0.000001"] = costed
	for args, want := range cases {
		var a []string
		if args != "" {
			k, v, _ := strings.Cut(args, " ")
			a = []string{k, v}
		}
		if got := count(a...); got != want {
			t.Errorf("logs %s: %d rows, want %d", args, got, want)
		}
	}
	h.run("", "logs").must(t, 0, []string{"ID", "MODEL", "STATE", "Explain zebrafish routing", "no answer"}, nil)
	h.run("", "logs", "--since", "yesterday").must(t, 2, nil, []string{"--since", "not a time"})
	h.run("", "logs", "--limit", "0").must(t, 2, nil, []string{"--limit"})
	h.run("", "logs", "--kind", "chat").must(t, 2, nil, []string{"--kind"})
	h.run("", "logs", "--min-cost", "-1").must(t, 2, nil, []string{"--min-cost"})
	h.run("", "logs", "--search", strings.Repeat("a", 1001)).must(t, 2, nil, []string{"search"})
}

func TestSpendExportAndPrune(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "Explain routing", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	h.run("", "respond", "Explain \"quotes\",\ncommas", "--model", "anthropic/claude-sonnet-4").must(t, 0, nil, nil)
	// Two old rows, written straight into the file.
	db, _, err := reqlog.Open(h.logPath())
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.5
	for _, days := range []int{100, 120} {
		db.Insert(context.Background(), &reqlog.Entry{Time: time.Now().Add(-time.Duration(days) * 24 * time.Hour), Kind: reqlog.KindResponse, Model: "old/model", State: "completed", Cost: &cost})
	}
	db.Close()

	r := h.run("", "spend", "--json")
	r.must(t, 0, nil, []string{"completed UTC days from /activity, today from the local log"})
	today := time.Now().UTC().Format(time.DateOnly)
	sources := map[string]int{}
	var todayCost float64
	for _, l := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var day map[string]any
		if err := json.Unmarshal([]byte(l), &day); err != nil {
			t.Fatalf("spend --json line %q: %v", l, err)
		}
		src := day["source"].(string)
		sources[src]++
		if day["date"] == today {
			if src != "local" {
				t.Fatalf("today from %s", src)
			}
			todayCost = day["cost"].(float64)
		} else if src != "activity" || day["date"].(string) >= today {
			t.Fatalf("a past day from %s: %v", src, day)
		}
	}
	if sources["activity"] < 10 || sources["local"] != 1 || todayCost <= 0 {
		t.Fatalf("spend sources %v, today $%v", sources, todayCost)
	}
	// Without a management key: the local log alone, and said so.
	delete(h.env, "GWDASH_MANAGEMENT_KEY")
	r = h.run("", "spend", "--json")
	r.must(t, 0, nil, []string{"from the local log only: no management key for /activity"})
	if n := len(strings.Split(strings.TrimSpace(r.out), "\n")); n != 1 || !strings.Contains(r.out, `"source":"local"`) {
		t.Fatalf("local spend: %s", r.out)
	}
	h.run("", "spend", "--since", "200d", "--by", "model").must(t, 0, []string{"old/model", "$1.00", "openai/gpt-4o-mini", "total"}, []string{"local log only"})
	csvOut := h.run("", "spend", "--by", "provider", "--csv")
	csvOut.must(t, 0, []string{"date,model,provider,cost,requests,source"}, nil)
	h.run("", "spend", "--by", "week").must(t, 2, nil, []string{"--by"})

	exp := h.run("", "logs", "export", "--search", "quotes")
	exp.must(t, 0, nil, nil)
	recs, err := csv.NewReader(strings.NewReader(exp.out)).ReadAll()
	if err != nil || len(recs) != 2 || recs[0][0] != "id" || recs[1][len(exportColumns)-2] != "Explain \"quotes\",\ncommas" {
		t.Fatalf("export csv: %v %q", err, recs)
	}
	jl := h.run("", "logs", "export", "--format", "jsonl")
	jl.must(t, 0, nil, nil)
	if n := len(strings.Split(strings.TrimSpace(jl.out), "\n")); n != 4 {
		t.Fatalf("jsonl lines %d", n)
	}
	h.run("", "logs", "export", "--format", "xml").must(t, 2, nil, []string{"--format"})

	h.run("", "logs", "prune").must(t, 0, []string{"removed 2 rows (2 by age, 0 by size)", "2 rows left"}, nil)
	r = h.run("", "logs", "prune", "--older-than", "0d", "--max-mb", "1")
	r.must(t, 0, []string{"removed 2 rows"}, nil)
	h.run("", "logs", "prune", "--older-than", "soon").must(t, 2, nil, []string{"--older-than"})
}

func TestBatchSubmitIsLogged(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	p := filepath.Join(t.TempDir(), "b.jsonl")
	os.WriteFile(p, []byte(`{"custom_id":"a","body":{"input":"hello batch"}}`+"\n"), 0o600)
	r := h.run("", "batch", "submit", p, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/responses", "--json")
	r.must(t, 0, nil, nil)
	var b map[string]any
	json.Unmarshal([]byte(r.out), &b)
	rows := h.logRows("--kind", "batch")
	if len(rows) != 1 {
		t.Fatalf("%d batch rows", len(rows))
	}
	var full map[string]any
	json.Unmarshal([]byte(h.run("", "logs", "show", id(rows[0]), "--json").out), &full)
	if full["batch_id"] != b["id"] || full["state"] != "submitted" || !strings.Contains(full["input"].(string), "1 requests") {
		t.Fatalf("batch row %v", full)
	}
	h.run("", "logs", "replay", id(rows[0])).must(t, 2, nil, []string{"only responses replay"})
}

func TestADamagedOrLockedLogNeverStopsARequest(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	os.MkdirAll(filepath.Dir(h.logPath()), 0o700)
	os.WriteFile(h.logPath(), []byte(strings.Repeat("garbage ", 1000)), 0o600)
	r := h.run("", "respond", "after damage", "--model", "openai/gpt-4o-mini")
	r.must(t, 0, nil, []string{"completed", "warning: the request log", "was damaged", "moved to"})
	if strings.Count(r.err, "warning") != 1 {
		t.Fatalf("said more than once: %s", r.err)
	}
	if rows := h.logRows(); len(rows) != 1 || rows[0]["input"] != "after damage" {
		t.Fatalf("rows after the damage: %v", rows)
	}
	// A symbolic link where the log should be: the request goes on, the
	// link is not followed.
	os.Remove(h.logPath())
	target := filepath.Join(t.TempDir(), "target")
	os.WriteFile(target, nil, 0o600)
	if err := os.Symlink(target, h.logPath()); err == nil {
		h.run("", "respond", "via link", "--model", "openai/gpt-4o-mini").must(t, 0, nil, []string{"completed", "symbolic link"})
		if b, _ := os.ReadFile(target); len(b) != 0 {
			t.Fatal("the link was followed")
		}
	}
}

// The log's retention is a profile setting: config set writes it, config
// show says it, and prune (and the recorder) keep to it.
func TestLogRetentionIsAProfileSetting(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "today", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	db, _, err := reqlog.Open(h.logPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, days := range []int{10, 40} {
		db.Insert(context.Background(), &reqlog.Entry{Time: time.Now().Add(-time.Duration(days) * 24 * time.Hour), Kind: reqlog.KindResponse, Model: "old/model", State: "completed"})
	}
	db.Close()
	h.run("", "config", "show").must(t, 0, []string{"log_keep_days", "90", "log_max_mb", "512"}, nil)
	h.run("", "config", "set", "log_keep_days", "0").must(t, 2, nil, []string{"log_keep_days must be a whole number of days"})
	h.run("", "config", "set", "log_max_mb", "lots").must(t, 2, nil, []string{"log_max_mb must be a whole number of MiB"})
	h.run("", "config", "set", "log_keep_days", "30").must(t, 0, nil, nil)
	h.run("", "config", "show").must(t, 0, []string{"log_keep_days   30"}, nil)
	// The default prune now keeps 30 days: the 40-day row goes, the
	// 10-day one stays; a flag still wins.
	h.run("", "logs", "prune").must(t, 0, []string{"removed 1 row (1 by age, 0 by size)", "2 rows left"}, nil)
	h.run("", "logs", "prune", "--older-than", "5d").must(t, 0, []string{"removed 1 row (1 by age"}, nil)
}

// A state filter names a state a row can hold; a typo is refused before
// the log is read, naming the states.
func TestLogsStateIsChecked(t *testing.T) {
	h := newHarness(t, gateway.Options{})
	h.run("", "respond", "one", "--model", "openai/gpt-4o-mini").must(t, 0, nil, nil)
	h.run("", "logs", "--state", "bogus").must(t, 2, nil, []string{`--state "bogus": one of completed`, "submitted"})
	h.run("", "logs", "--state", "completed").must(t, 0, []string{"one"}, nil)
}
