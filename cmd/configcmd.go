package cmd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/notify"
	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Show where settings come from, or change the config file", Args: cobra.NoArgs,
		RunE: needsCommand("path, show or set")}
	c.AddCommand(&cobra.Command{
		Use: "path", Short: "Print the config file's path", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			path, err := a.configPath()
			if err != nil {
				return err
			}
			fmt.Fprintln(a.out, path)
			return nil
		},
	}, &cobra.Command{
		Use: "show", Short: "Print the effective settings and where each came from (keys masked)", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// A base URL every request would refuse is shown and flagged,
			// not an error: showing is how the user finds it.
			cfg, err := config.Load(config.Inputs{Flags: a.flags, Env: a.env, Inspect: true})
			if err != nil {
				return err
			}
			if cfg.BaseURLRefused != "" {
				fmt.Fprintln(a.errw, "gwdash: warning: every request would refuse it: "+cfg.BaseURLRefused)
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintln(a.errw, "gwdash: warning: "+w)
			}
			src := func(k string) string {
				if s := cfg.Sources[k]; s != "" {
					return s
				}
				return "not set"
			}
			t := newTable(a.out)
			t.row("SETTING", "VALUE", "FROM")
			t.row("config", cfg.Path, src("config"))
			t.row("profile", cfg.Profile, src("profile"))
			baseURL := orDash(cfg.BaseURL)
			if cfg.BaseURLRefused != "" {
				baseURL += " ✗ refused: plain http to a non-loopback host"
			}
			t.row("base_url", baseURL, src("base_url"))
			t.row("api_key", config.Mask(cfg.APIKey), src("api_key"))
			t.row("management_key", config.Mask(cfg.ManagementKey), src("management_key"))
			t.row("workspace_id", orDash(cfg.WorkspaceID), src("workspace_id"))
			t.row("theme", cfg.Theme, src("theme"))
			t.row("poll_interval", cfg.PollInterval.String(), src("poll_interval"))
			t.row("read_only", format.OnOff(cfg.ReadOnly), src("read_only"))
			t.row("notify", string(cfg.Notify), src("notify"))
			creditWarn := "off"
			if cfg.CreditWarn > 0 {
				creditWarn = format.Cost(cfg.CreditWarn)
			}
			t.row("credit_warn", creditWarn, src("credit_warn"))
			t.row("answer_cap_mb", fmt.Sprint(cfg.AnswerCap>>20), src("answer_cap_mb"))
			t.row("log", format.OnOff(cfg.Log), src("log"))
			age, size := logRetention(cfg)
			t.row("log_keep_days", strconv.Itoa(int(age/(24*time.Hour))), src("log_keep_days"))
			t.row("log_max_mb", strconv.FormatInt(size>>20, 10), src("log_max_mb"))
			t.flush()
			return nil
		},
	}, a.configSet())
	return c
}

// configPath is --config, else GWDASH_CONFIG, else the default path.
func (a *app) configPath() (string, error) {
	if a.flags.ConfigPath != "" {
		return a.flags.ConfigPath, nil
	}
	if p := a.env("GWDASH_CONFIG"); p != "" {
		return p, nil
	}
	return config.DefaultPath(a.env)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// setWhole is the setter of a whole number of unit from 1 to limit, kept
// in the member of the profile that field gives.
func setWhole(name, unit string, limit int64, field func(*config.Profile) *int64) func(*config.Profile, string) error {
	return func(p *config.Profile, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > limit {
			return fmt.Errorf("%s must be a whole number of %s, 1 to %d", name, unit, limit)
		}
		*field(p) = n
		return nil
	}
}

// setOnOff is the setter of an on/off member of the profile that field
// gives.
func setOnOff(name string, field func(*config.Profile) **bool) func(*config.Profile, string) error {
	return func(p *config.Profile, v string) error {
		b, err := api.ParseOnOff(name, v)
		if err != nil {
			return fmt.Errorf("%s must be on or off", name)
		}
		*field(p) = &b
		return nil
	}
}

// settable lists what `config set` may write, with a setter each.
var settable = map[string]func(p *config.Profile, v string) error{
	"base_url":           func(p *config.Profile, v string) error { p.BaseURL = v; return config.CheckBaseURL(v, true) },
	"api_key_cmd":        func(p *config.Profile, v string) error { p.APIKeyCmd = v; return nil },
	"management_key_cmd": func(p *config.Profile, v string) error { p.ManagementKeyCmd = v; return nil },
	"workspace_id":       func(p *config.Profile, v string) error { p.WorkspaceID = v; return nil },
	"theme": func(p *config.Profile, v string) error {
		if v != "auto" && v != "dark" && v != "light" {
			return fmt.Errorf("theme must be auto, dark or light")
		}
		p.Theme = v
		return nil
	},
	"poll_interval": func(p *config.Profile, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("poll_interval must be a positive duration like 5s")
		}
		p.PollInterval = v
		return nil
	},
	"notify": func(p *config.Profile, v string) error {
		if _, err := notify.ParseMode(v); err != nil {
			return err
		}
		p.Notify = v
		return nil
	},
	"credit_warn": func(p *config.Profile, v string) error {
		n, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
		if err != nil {
			return notify.CheckCreditWarn(-1)
		}
		if err := notify.CheckCreditWarn(n); err != nil {
			return err
		}
		p.CreditWarn = &n
		return nil
	},
	"answer_cap_mb": setWhole("answer_cap_mb", "MiB", config.AnswerCapMBLimit, func(p *config.Profile) *int64 { return &p.AnswerCapMB }),
	"log_keep_days": setWhole("log_keep_days", "days", config.LogRetentionLimit, func(p *config.Profile) *int64 { return &p.LogKeepDays }),
	"log_max_mb":    setWhole("log_max_mb", "MiB", config.LogMaxMBLimit, func(p *config.Profile) *int64 { return &p.LogMaxMB }),
	"read_only":     setOnOff("read_only", func(p *config.Profile) **bool { return &p.ReadOnly }),
	"log":           setOnOff("log", func(p *config.Profile) **bool { return &p.Log }),
}

func (a *app) configSet() *cobra.Command {
	keys := make([]string, 0, len(settable))
	for k := range settable {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Write a setting of the current profile to the config file (mode 0600)",
		Long: "Write a setting of the current profile (--profile) to the config file, created with mode 0600.\n" +
			"Keys: " + strings.Join(keys, ", ") + ".\nKeys themselves are not written by this command: use api_key_cmd, or the environment.",
		Args: exactArgs(2, "a key and a value"),
		RunE: func(c *cobra.Command, args []string) error {
			set, ok := settable[args[0]]
			if !ok {
				return inputErrorf("config set: %q is not settable here (settable: %s)", args[0], strings.Join(keys, ", "))
			}
			if args[0] == "base_url" {
				// refused with the words every later request would use
				if err := config.CheckBaseURL(args[1], a.flags.Insecure); err != nil {
					return err
				}
			}
			path, err := a.configPath()
			if err != nil {
				return err
			}
			f, err := config.ReadFile(path)
			if err != nil {
				return err
			}
			profile := a.flags.Profile
			if profile == "" {
				profile = a.env("GWDASH_PROFILE")
			}
			if profile == "" {
				profile = f.DefaultProfile
			}
			if profile == "" {
				profile = "default"
			}
			if f.Profiles == nil {
				f.Profiles = map[string]config.Profile{}
			}
			p := f.Profiles[profile]
			if err := set(&p, args[1]); err != nil {
				return inputErrorf("config set %s: %v", args[0], err)
			}
			f.Profiles[profile] = p
			if err := config.Save(path, f); err != nil {
				return err
			}
			fmt.Fprintf(a.errw, "wrote %s in [profiles.%s] of %s\n", args[0], profile, path)
			return nil
		},
	}
}
