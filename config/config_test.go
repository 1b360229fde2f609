package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

const sample = `default_profile = "prod"

[profiles.prod]
base_url = "https://gw.example/api/v1"
api_key_cmd = "echo from-command"
management_key = "mgmt-file-key-123456"
workspace_id = "6f1c2a8e-3b7d-4e29-9a51-0c8d7e6f5a41"
poll_interval = "9s"

[profiles.staging]
base_url = "https://staging.example/api/v1"
api_key = "staging-file-key-999"
read_only = true
`

func writeConfig(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedence(t *testing.T) {
	p := writeConfig(t, sample, 0o600)
	r, err := Load(Inputs{Flags: Flags{ConfigPath: p}, Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile != "prod" || r.BaseURL != "https://gw.example/api/v1" || r.APIKey != "from-command" || r.PollInterval != 9*time.Second {
		t.Fatalf("file values: %+v", r.Settings)
	}
	if !strings.HasPrefix(r.Sources["api_key"], "command") || r.Sources["base_url"] != "file [profiles.prod]" || len(r.Warnings) != 0 {
		t.Fatalf("sources %v warnings %v", r.Sources, r.Warnings)
	}
	// Environment beats the file; flags beat the environment.
	env := envOf(map[string]string{"GWDASH_API_KEY": "env-key-abcdef", "GWDASH_BASE_URL": "https://env.example/api/v1", "GWDASH_PROFILE": "staging"})
	r, err = Load(Inputs{Flags: Flags{ConfigPath: p, BaseURL: "http://127.0.0.1:9/api/v1"}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile != "staging" || r.APIKey != "env-key-abcdef" || r.BaseURL != "http://127.0.0.1:9/api/v1" || !r.ReadOnly {
		t.Fatalf("overrides: %+v", r)
	}
	if r.Sources["api_key"] != "env GWDASH_API_KEY" || r.Sources["base_url"] != "flag --base-url" || r.Sources["profile"] != "env GWDASH_PROFILE" {
		t.Fatalf("sources %v", r.Sources)
	}
	// GWDASH_CONFIG names the file when --config does not.
	r, err = Load(Inputs{Env: envOf(map[string]string{"GWDASH_CONFIG": p})})
	if err != nil || r.Path != p || r.Sources["config"] != "env GWDASH_CONFIG" {
		t.Fatalf("GWDASH_CONFIG: %v %v", r, err)
	}
}

func TestRefusals(t *testing.T) {
	p := writeConfig(t, sample, 0o600)
	var ce *ConfigError
	if _, err := Load(Inputs{Flags: Flags{ConfigPath: p, Profile: "nope"}, Env: envOf(nil)}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "prod, staging") {
		t.Fatalf("unknown profile: %v", err)
	}
	if _, err := Load(Inputs{Flags: Flags{ConfigPath: p, BaseURL: "http://gw.example/api/v1"}, Env: envOf(nil)}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("plain http: %v", err)
	}
	if _, err := Load(Inputs{Flags: Flags{ConfigPath: p, BaseURL: "http://gw.example/api/v1", Insecure: true}, Env: envOf(nil)}); err != nil {
		t.Fatalf("--insecure: %v", err)
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:9"} {
		if err := CheckBaseURL("http://"+host+"/api/v1", false); err != nil {
			t.Fatalf("loopback %s: %v", host, err)
		}
	}
	bad := writeConfig(t, "[profiles.x]\napi_kye = \"typo\"\n", 0o600)
	if _, err := Load(Inputs{Flags: Flags{ConfigPath: bad}, Env: envOf(nil)}); err == nil || !strings.Contains(err.Error(), "api_kye") {
		t.Fatalf("unknown setting: %v", err)
	}
	theme := writeConfig(t, "[profiles.x]\ntheme = \"pink\"\n", 0o600)
	if _, err := Load(Inputs{Flags: Flags{ConfigPath: theme}, Env: envOf(nil)}); err == nil || !strings.Contains(err.Error(), "auto, dark or light") {
		t.Fatalf("bad theme: %v", err)
	}
	failing := writeConfig(t, "[profiles.default]\napi_key_cmd = \"exit 3\"\n", 0o600)
	_, err := Load(Inputs{Flags: Flags{ConfigPath: failing}, Env: envOf(nil)})
	if err == nil || !strings.Contains(err.Error(), "api_key_cmd") {
		t.Fatalf("failing key command: %v", err)
	}
}

func TestKeyCommandOutputNeverInErrors(t *testing.T) {
	p := writeConfig(t, "[profiles.default]\napi_key_cmd = \"echo secret-from-cmd; exit 1\"\n", 0o600)
	_, err := Load(Inputs{Flags: Flags{ConfigPath: p}, Env: envOf(nil)})
	if err == nil || strings.Contains(err.Error(), "secret-from-cmd\n") || strings.Count(err.Error(), "secret-from-cmd") > 1 {
		t.Fatalf("error: %v", err)
	}
	r, err := Load(Inputs{Flags: Flags{ConfigPath: p}, Env: envOf(nil), RunKeyCommand: func(ctx context.Context, c string) (string, error) { return "injected", nil }})
	if err != nil || r.APIKey != "injected" {
		t.Fatalf("injected runner: %v", err)
	}
}

func TestPermissionWarning(t *testing.T) {
	p := writeConfig(t, sample, 0o644)
	os.Chmod(p, 0o644)
	r, err := Load(Inputs{Flags: Flags{ConfigPath: p}, Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], p) || !strings.Contains(r.Warnings[0], "chmod 600") {
		t.Fatalf("warnings %v", r.Warnings)
	}
}

func TestSaveMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "config.toml")
	f := &File{DefaultProfile: "demo", Profiles: map[string]Profile{"demo": {BaseURL: "http://127.0.0.1:1/api/v1", APIKey: "k"}}}
	if err := Save(p, f); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	back, err := ReadFile(p)
	if err != nil || back.Profiles["demo"].APIKey != "k" || back.DefaultProfile != "demo" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestPathsAndMask(t *testing.T) {
	p, _ := DefaultPath(envOf(map[string]string{"XDG_CONFIG_HOME": "/x"}))
	if p != "/x/gwdash/config.toml" {
		t.Fatalf("path %s", p)
	}
	s, _ := StateDir(envOf(map[string]string{"XDG_STATE_HOME": "/s"}))
	if s != "/s/gwdash" {
		t.Fatalf("state %s", s)
	}
	if m := Mask("abcdefghijklmnop"); strings.Contains(m, "abcdefghijkl") || !strings.HasSuffix(m, "mnop") {
		t.Fatalf("mask %s", m)
	}
	if Mask("") != "(not set)" {
		t.Fatal("empty mask")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("[profiles.a]\npoll_interval = \"x\""))
	f.Add([]byte("="))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b, "fuzz")
		if err == nil && file == nil {
			t.Fatal("nil file without error")
		}
	})
}

// A key command that starts a child which keeps the pipe open is stopped
// at its timeout, child and all.
func TestKeyCommandKilledWithItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runCommand(ctx, "sleep 60 & echo $! > "+pidFile+"; wait")
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the key command outlived its timeout")
	}
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("want a timeout error, got %v", err)
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for i := 0; ; i++ {
		p, _ := os.FindProcess(pid)
		if p.Signal(syscall.Signal(0)) != nil {
			break // gone
		}
		if i > 200 {
			t.Fatalf("the child %d is still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// credit_warn: off by default; a dollar amount (a whole number too) is
// kept with its source; a negative, huge or non-number value is refused
// naming the profile and the setting.
func TestCreditWarn(t *testing.T) {
	r, err := Load(Inputs{Flags: Flags{ConfigPath: writeConfig(t, "[profiles.default]\nbase_url = \"https://gw.example/api/v1\"\n", 0o600)}, Env: envOf(nil)})
	if err != nil || r.CreditWarn != 0 || r.Sources["credit_warn"] != "default" {
		t.Fatalf("default: %v %v %q", err, r.CreditWarn, r.Sources["credit_warn"])
	}
	for body, want := range map[string]float64{"credit_warn = 5": 5, "credit_warn = 2.50": 2.5} {
		r, err := Load(Inputs{Flags: Flags{ConfigPath: writeConfig(t, "[profiles.default]\n"+body+"\n", 0o600)}, Env: envOf(nil)})
		if err != nil || r.CreditWarn != want || r.Sources["credit_warn"] != "file [profiles.default]" {
			t.Fatalf("%s: %v %v %q", body, err, r.CreditWarn, r.Sources["credit_warn"])
		}
	}
	for _, body := range []string{"credit_warn = -1", "credit_warn = 1e9", "credit_warn = nan", `credit_warn = "5"`} {
		_, err := Load(Inputs{Flags: Flags{ConfigPath: writeConfig(t, "[profiles.p]\n"+body+"\n", 0o600), Profile: "p"}, Env: envOf(nil)})
		if err == nil || !strings.Contains(err.Error(), "credit_warn") {
			t.Errorf("%s: %v", body, err)
		}
	}
}
