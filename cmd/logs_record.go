package cmd

// The request log of a run: started when a command resolves its gateway,
// written off the command's path (a request never waits for it), closed
// when the run ends, its problems said once on stderr.

import (
	"fmt"
	"net/url"
	"time"

	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// requestLogWait is how long the end of a run waits for the log's last
// writes (another process holding the lock, a slow disk).
const requestLogWait = 5 * time.Second

// startRequestLog starts recording this run's requests unless the log is
// off (log = false in the profile, or --no-log).
func (a *app) startRequestLog(cfg *config.Resolved) {
	if a.reqlog != nil || !cfg.Log {
		return
	}
	path, err := a.requestLogPath()
	if err != nil {
		fmt.Fprintln(a.errw, "gwdash: warning: no state directory for the request log: requests are not being logged")
		return
	}
	age, size := logRetention(cfg)
	a.reqlog = reqlog.Start(reqlog.Options{Path: path, Profile: cfg.Profile, Host: hostOf(cfg.BaseURL), MaxAge: age, MaxBytes: size})
}

// requestLogPath is the log in the state directory.
func (a *app) requestLogPath() (string, error) {
	dir, err := config.StateDir(a.env)
	if err != nil {
		return "", err
	}
	return reqlog.Path(dir), nil
}

// hostOf is a base URL's host (no path, no credentials).
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Host
}

// closeRequestLog writes what is waiting and says each problem once.
func (a *app) closeRequestLog() {
	if a.reqlog == nil {
		return
	}
	a.reqlog.Close(requestLogWait)
	for _, p := range a.reqlog.PendingProblems() {
		fmt.Fprintln(a.errw, "gwdash: warning: "+p)
	}
	a.reqlog = nil
}

// logRetention is the request log's retention for a profile: its
// log_keep_days and log_max_mb, else the log's defaults.
func logRetention(cfg *config.Resolved) (age time.Duration, size int64) {
	age, size = reqlog.DefaultMaxAge, reqlog.DefaultMaxBytes
	if cfg != nil && cfg.LogKeepDays > 0 {
		age = time.Duration(cfg.LogKeepDays) * 24 * time.Hour
	}
	if cfg != nil && cfg.LogMaxMB > 0 {
		size = cfg.LogMaxMB << 20
	}
	return age, size
}
