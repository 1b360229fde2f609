// Package config resolves gwdash's settings from flags, the environment and
// the config file (one section per profile), remembering where each value
// came from. Keys can be read from a command so that they need not sit in
// the file; they are never printed, only masked.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/atomicfile"
	"github.com/gwdash/gwdash/internal/notify"
)

// Profile is one section of the config file.
type Profile struct {
	BaseURL          string `toml:"base_url,omitempty"`
	APIKey           string `toml:"api_key,omitempty"`
	APIKeyCmd        string `toml:"api_key_cmd,omitempty"`
	ManagementKey    string `toml:"management_key,omitempty"`
	ManagementKeyCmd string `toml:"management_key_cmd,omitempty"`
	WorkspaceID      string `toml:"workspace_id,omitempty"`
	Theme            string `toml:"theme,omitempty"`
	PollInterval     string `toml:"poll_interval,omitempty"`
	ReadOnly         *bool  `toml:"read_only,omitempty"`
	MaxBodyMB        int64  `toml:"max_body_mb,omitempty"`
	Notify           string `toml:"notify,omitempty"`
	AnswerCapMB      int64  `toml:"answer_cap_mb,omitempty"`
	// Log = false keeps this profile's requests out of the request log.
	Log *bool `toml:"log,omitempty"`
	// LogKeepDays and LogMaxMB are the request log's retention (0: the
	// log's defaults, 90 days and 512 MiB).
	LogKeepDays int64 `toml:"log_keep_days,omitempty"`
	LogMaxMB    int64 `toml:"log_max_mb,omitempty"`
	// CreditWarn warns (the notify channel) when the key's remaining
	// limit falls under it, in dollars; absent or 0: off.
	CreditWarn *float64 `toml:"credit_warn,omitempty"`
}

// File is the config file: a default profile and the profiles by name.
//
//	default_profile = "prod"
//	[profiles.prod]
//	base_url = "https://gateway.example/api/v1"
//	api_key_cmd = "pass show gateway"
type File struct {
	DefaultProfile string             `toml:"default_profile,omitempty"`
	Profiles       map[string]Profile `toml:"profiles,omitempty"`
}

// Flags are the command-line overrides; empty strings are unset.
type Flags struct {
	BaseURL       string
	APIKey        string
	ManagementKey string
	Profile       string
	ConfigPath    string
	Insecure      bool
	ReadOnly      bool
	Workspace     string
	Theme         string
	// MaxBodyMB caps an answer's size in MiB; 0 is unset.
	MaxBodyMB int64
	// AnswerCapMB caps the answer text kept per model in MiB; 0 is unset.
	AnswerCapMB int64
	// NoLog turns the request log off (--no-log).
	NoLog bool
}

// Settings are the effective values.
type Settings struct {
	BaseURL       string
	APIKey        string
	ManagementKey string
	WorkspaceID   string
	Theme         string
	PollInterval  time.Duration
	ReadOnly      bool
	Insecure      bool
	// MaxBodyMB is the largest answer read, in MiB (a batch can be large).
	MaxBodyMB int64
	// Notify is how a watched batch's end is told (notify.Mode).
	Notify notify.Mode
	// CreditWarn is the remaining limit, in dollars, under which the key's
	// credit is warned of through the same channel (0: off).
	CreditWarn float64
	// AnswerCap is the most answer text kept per model, in bytes: a
	// playground turn, a compare pane, a spooled answer of a multi-model
	// respond. Past it that answer's stream stops, "truncated at" the cap,
	// with what arrived kept.
	AnswerCap int64
	// Log: requests are kept in the local request log (on by default).
	Log bool
	// LogKeepDays and LogMaxMB: the request log's retention (0: its
	// defaults, reqlog.DefaultMaxAge and DefaultMaxBytes).
	LogKeepDays, LogMaxMB int64
}

// LogRetentionLimit is the largest log_keep_days a user
// may set, in days (about 27 years).
const LogRetentionLimit = 10000

// LogMaxMBLimit is the largest log_max_mb (1 TiB).
const LogMaxMBLimit = 1 << 20

// DefaultMaxBodyMB is the answer cap when none is set.
const DefaultMaxBodyMB = 512

// MaxBodyMBLimit is the largest cap a user may set (16 GiB).
const MaxBodyMBLimit = 16 << 10

// DefaultAnswerCap is the answer text kept per model when answer_cap_mb
// is not set (64 MiB): the one default of the playground, the compare
// panes and a multi-model respond.
const DefaultAnswerCap = api.DefaultAnswerCap

// AnswerCapMBLimit is the largest answer_cap_mb a user may set (16 GiB).
const AnswerCapMBLimit = 16 << 10

// Resolved is the outcome of Load.
type Resolved struct {
	Settings
	Profile string
	Path    string
	// Sources names where each setting came from: "flag --api-key",
	// "env GWDASH_API_KEY", "file [profiles.prod]", "command (api_key_cmd)",
	// "default".
	Sources  map[string]string
	Warnings []string
	// BaseURLRefused is why every request would refuse the base URL
	// (only with Inputs.Inspect; "" when it is fine).
	BaseURLRefused string
}

// Env reads an environment variable.
type Env func(string) string

// Inputs are what Load reads.
type Inputs struct {
	Flags Flags
	Env   Env
	// RunKeyCommand runs a *_cmd setting; nil means sh -c with a timeout.
	RunKeyCommand func(ctx context.Context, command string) (string, error)
	// Inspect resolves for showing (config show): a base URL every
	// request would refuse is kept, and the refusal put in
	// Resolved.BaseURLRefused, instead of failing.
	Inspect bool
}

// ConfigError is a setting refused before any request is sent.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// DefaultPath is the config file in the user's config directory (XDG on
// Linux, the platform's own elsewhere).
func DefaultPath(env Env) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if x := env("XDG_CONFIG_HOME"); x != "" && runtime.GOOS != "windows" {
		return filepath.Join(x, "gwdash", "config.toml"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "gwdash", "config.toml"), nil
}

// StateDir is where gwdash keeps remembered state (batches, destinations
// and models per gateway): $XDG_STATE_HOME/gwdash, ~/.local/state/gwdash on
// Unix, the user cache directory elsewhere.
func StateDir(env Env) (string, error) { return xdgDir(env, "XDG_STATE_HOME", ".local/state") }

// CacheDir is where gwdash keeps caches (the models catalogue):
// $XDG_CACHE_HOME/gwdash, ~/.cache/gwdash on Unix, the user cache
// directory elsewhere.
func CacheDir(env Env) (string, error) { return xdgDir(env, "XDG_CACHE_HOME", ".cache") }

// xdgDir is gwdash's folder under an XDG base directory: the variable's
// value, else home/fallback on Unix, else the user cache directory.
func xdgDir(env Env, variable, fallback string) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if x := env(variable); x != "" {
		return filepath.Join(x, "gwdash"), nil
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		d, err := os.UserCacheDir()
		return filepath.Join(d, "gwdash"), err
	}
	home := env("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	return filepath.Join(home, filepath.FromSlash(fallback), "gwdash"), nil
}

// ReadFile parses a config file; a missing file is an empty File.
func ReadFile(path string) (*File, error) {
	var f File
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &f, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// Parse decodes config file bytes; name is used in messages.
func Parse(b []byte, name string) (*File, error) {
	var f File
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&f)
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("config file %s: %v", name, err)}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, &ConfigError{Msg: fmt.Sprintf("config file %s: unknown setting %s", name, strings.Join(keys, ", "))}
	}
	for name, p := range f.Profiles {
		if p.Theme != "" && p.Theme != "auto" && p.Theme != "dark" && p.Theme != "light" {
			return nil, &ConfigError{Msg: fmt.Sprintf("config file: [profiles.%s] theme %q must be auto, dark or light", name, p.Theme)}
		}
		if _, err := notify.ParseMode(p.Notify); err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("config file: [profiles.%s] notify %q: %v", name, p.Notify, err)}
		}
		if p.CreditWarn != nil {
			if err := notify.CheckCreditWarn(*p.CreditWarn); err != nil {
				return nil, &ConfigError{Msg: fmt.Sprintf("config file: [profiles.%s] credit_warn %v: %v", name, *p.CreditWarn, err)}
			}
		}
		if p.PollInterval != "" {
			if _, err := time.ParseDuration(p.PollInterval); err != nil {
				return nil, &ConfigError{Msg: fmt.Sprintf("config file: [profiles.%s] poll_interval %q is not a duration like 5s", name, p.PollInterval)}
			}
		}
	}
	return &f, nil
}

// Save writes the file with mode 0600, through a temporary file and a
// rename so that a failure never leaves half a file.
func Save(path string, f *File) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(f); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

// Load resolves the settings: flags, then environment, then the file's
// profile, then defaults.
func Load(in Inputs) (*Resolved, error) {
	env := in.Env
	if env == nil {
		env = os.Getenv
	}
	r := &Resolved{Sources: map[string]string{}}
	path, src := in.Flags.ConfigPath, "flag --config"
	if path == "" {
		path, src = env("GWDASH_CONFIG"), "env GWDASH_CONFIG"
	}
	if path == "" {
		var err error
		if path, err = DefaultPath(env); err != nil {
			return nil, err
		}
		src = "default"
	}
	r.Path, r.Sources["config"] = path, src
	file, err := ReadFile(path)
	if err != nil {
		return nil, err
	}

	r.Profile, r.Sources["profile"] = in.Flags.Profile, "flag --profile"
	if r.Profile == "" {
		r.Profile, r.Sources["profile"] = env("GWDASH_PROFILE"), "env GWDASH_PROFILE"
	}
	if r.Profile == "" {
		r.Profile, r.Sources["profile"] = file.DefaultProfile, "file default_profile"
	}
	if r.Profile == "" {
		r.Profile, r.Sources["profile"] = "default", "default"
	}
	prof, ok := file.Profiles[r.Profile]
	if !ok && r.Sources["profile"] != "default" && len(file.Profiles) > 0 {
		names := make([]string, 0, len(file.Profiles))
		for n := range file.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &ConfigError{Msg: fmt.Sprintf("profile %q is not in %s (profiles: %s)", r.Profile, path, strings.Join(names, ", "))}
	}
	fileSrc := fmt.Sprintf("file [profiles.%s]", r.Profile)

	pick := func(name, flag, flagName, envName, fileVal string) string {
		switch {
		case flag != "":
			r.Sources[name] = "flag --" + flagName
			return flag
		case envName != "" && env(envName) != "":
			r.Sources[name] = "env " + envName
			return env(envName)
		case fileVal != "":
			r.Sources[name] = fileSrc
			return fileVal
		}
		return ""
	}
	r.BaseURL = pick("base_url", in.Flags.BaseURL, "base-url", "GWDASH_BASE_URL", prof.BaseURL)
	r.APIKey = pick("api_key", in.Flags.APIKey, "api-key", "GWDASH_API_KEY", prof.APIKey)
	r.ManagementKey = pick("management_key", in.Flags.ManagementKey, "management-key", "GWDASH_MANAGEMENT_KEY", prof.ManagementKey)
	r.WorkspaceID = pick("workspace_id", in.Flags.Workspace, "workspace", "GWDASH_WORKSPACE", prof.WorkspaceID)
	r.Theme = pick("theme", in.Flags.Theme, "theme", "", prof.Theme)
	if r.Theme == "" {
		r.Theme, r.Sources["theme"] = "auto", "default"
	}
	r.PollInterval, r.Sources["poll_interval"] = 5*time.Second, "default"
	if prof.PollInterval != "" {
		r.PollInterval, _ = time.ParseDuration(prof.PollInterval)
		r.Sources["poll_interval"] = fileSrc
	}
	switch {
	case in.Flags.ReadOnly:
		r.ReadOnly, r.Sources["read_only"] = true, "flag --read-only"
	case prof.ReadOnly != nil:
		r.ReadOnly, r.Sources["read_only"] = *prof.ReadOnly, fileSrc
	default:
		r.Sources["read_only"] = "default"
	}
	r.Insecure = in.Flags.Insecure
	r.Notify, _ = notify.ParseMode(prof.Notify) // checked when the file was read
	r.Sources["notify"] = "default"
	if prof.Notify != "" {
		r.Sources["notify"] = fileSrc
	}
	r.Sources["credit_warn"] = "default"
	if prof.CreditWarn != nil {
		r.CreditWarn, r.Sources["credit_warn"] = *prof.CreditWarn, fileSrc // checked when the file was read
	}
	r.Log, r.Sources["log"] = prof.Log == nil || *prof.Log, "default"
	switch {
	case in.Flags.NoLog:
		r.Log, r.Sources["log"] = false, "flag --no-log"
	case prof.Log != nil:
		r.Sources["log"] = fileSrc
	}
	r.LogKeepDays, r.LogMaxMB = prof.LogKeepDays, prof.LogMaxMB
	r.Sources["log_keep_days"], r.Sources["log_max_mb"] = "default", "default"
	if prof.LogKeepDays != 0 {
		r.Sources["log_keep_days"] = fileSrc
	}
	if prof.LogMaxMB != 0 {
		r.Sources["log_max_mb"] = fileSrc
	}
	if r.LogKeepDays < 0 || r.LogKeepDays > LogRetentionLimit {
		return nil, &ConfigError{Msg: fmt.Sprintf("log_keep_days %d (%s): must be 1 to %d", r.LogKeepDays, fileSrc, LogRetentionLimit)}
	}
	if r.LogMaxMB < 0 || r.LogMaxMB > LogMaxMBLimit {
		return nil, &ConfigError{Msg: fmt.Sprintf("log_max_mb %d (%s): must be 1 to %d", r.LogMaxMB, fileSrc, LogMaxMBLimit)}
	}
	r.MaxBodyMB, r.Sources["max_body_mb"] = DefaultMaxBodyMB, "default"
	switch {
	case in.Flags.MaxBodyMB != 0:
		r.MaxBodyMB, r.Sources["max_body_mb"] = in.Flags.MaxBodyMB, "flag --max-body-mb"
	case prof.MaxBodyMB != 0:
		r.MaxBodyMB, r.Sources["max_body_mb"] = prof.MaxBodyMB, fileSrc
	}
	if r.MaxBodyMB < 1 || r.MaxBodyMB > MaxBodyMBLimit {
		return nil, &ConfigError{Msg: fmt.Sprintf("max_body_mb %d (%s): must be 1 to %d", r.MaxBodyMB, r.Sources["max_body_mb"], MaxBodyMBLimit)}
	}
	r.AnswerCap, r.Sources["answer_cap_mb"] = DefaultAnswerCap, "default"
	capMB := int64(0)
	switch {
	case in.Flags.AnswerCapMB != 0:
		capMB, r.Sources["answer_cap_mb"] = in.Flags.AnswerCapMB, "flag --answer-cap-mb"
	case prof.AnswerCapMB != 0:
		capMB, r.Sources["answer_cap_mb"] = prof.AnswerCapMB, fileSrc
	}
	if r.Sources["answer_cap_mb"] != "default" {
		if capMB < 1 || capMB > AnswerCapMBLimit {
			return nil, &ConfigError{Msg: fmt.Sprintf("answer_cap_mb %d (%s): must be 1 to %d", capMB, r.Sources["answer_cap_mb"], AnswerCapMBLimit)}
		}
		r.AnswerCap = capMB << 20
	}

	run := in.RunKeyCommand
	if run == nil {
		run = runCommand
	}
	for _, k := range []struct {
		name, cmd string
		dst       *string
	}{{"api_key", prof.APIKeyCmd, &r.APIKey}, {"management_key", prof.ManagementKeyCmd, &r.ManagementKey}} {
		if *k.dst != "" || k.cmd == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), keyCommandTimeout)
		v, err := run(ctx, k.cmd)
		cancel()
		if err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("%s_cmd in [profiles.%s] failed: %v", k.name, r.Profile, err)}
		}
		*k.dst = v
		r.Sources[k.name] = fmt.Sprintf("command (%s_cmd in [profiles.%s])", k.name, r.Profile)
	}

	if prof.APIKey != "" || prof.ManagementKey != "" || anyKey(file) {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s holds a key and is readable by others (mode %#o): run chmod 600 %s", path, st.Mode().Perm(), path))
		}
	}
	if r.BaseURL != "" {
		if err := CheckBaseURL(r.BaseURL, r.Insecure); err != nil {
			if !in.Inspect {
				return nil, err
			}
			r.BaseURLRefused = err.Error()
		}
	}
	return r, nil
}

// keyCommandTimeout bounds a *_cmd setting.
const keyCommandTimeout = 10 * time.Second

func anyKey(f *File) bool {
	for _, p := range f.Profiles {
		if p.APIKey != "" || p.ManagementKey != "" {
			return true
		}
	}
	return false
}

// runCommand runs a key command with sh -c and returns its trimmed output.
// Its output never appears in an error. At the context's end the command's
// whole process group is killed, and the wait for its output ends even if
// a child it started keeps the pipe open.
func runCommand(ctx context.Context, command string) (string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout = &out
	ownProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("running %q: no answer within %s (stopped)", command, keyCommandTimeout)
		}
		return "", fmt.Errorf("running %q: %v", command, err)
	}
	v := strings.TrimSpace(out.String())
	if i := strings.IndexByte(v, '\n'); i >= 0 {
		v = v[:i] // pass and friends print extra lines after the secret
	}
	if v == "" {
		return "", fmt.Errorf("%q printed nothing", command)
	}
	return v, nil
}

// CheckBaseURL refuses a base URL that is not https and not loopback,
// unless insecure is set.
func CheckBaseURL(raw string, insecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return &ConfigError{Msg: fmt.Sprintf("base URL %q is not an http(s) URL like https://host/api/v1", raw)}
	}
	if u.Scheme == "https" || insecure || IsLoopback(u.Hostname()) {
		return nil
	}
	return &ConfigError{Msg: fmt.Sprintf("base URL %s is plain http to a non-loopback host: keys would travel unencrypted; use https or pass --insecure", u.Scheme+"://"+u.Host)}
}

// IsLoopback reports whether host is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Mask shows that a key is set without showing it.
func Mask(key string) string {
	if key == "" {
		return "(not set)"
	}
	if len(key) < 12 {
		return "set (" + fmt.Sprint(len(key)) + " characters)"
	}
	return "••••" + key[len(key)-4:]
}
