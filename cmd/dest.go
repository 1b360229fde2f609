package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/spf13/cobra"
)

func (a *app) destCommand() *cobra.Command {
	c := &cobra.Command{Use: "dest", Aliases: []string{"destinations"}, Short: "List and update observability destinations (management key)", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return inputErrorf("dest needs a command: list or update") }}
	c.AddCommand(a.destList(), a.destUpdate())
	return c
}

func (a *app) destList() *cobra.Command {
	var workspace string
	var offset, limit int
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List destinations of a workspace",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts := api.ListOptions{Offset: offset, Limit: limit, WorkspaceID: workspace}
			if c.Flags().Changed("limit") && limit == 0 {
				return inputErrorf("--limit 0: must be 1 to 100")
			}
			if err := opts.Validate(); err != nil {
				return err
			}
			cfg, client, err := a.managementClient()
			if err != nil {
				return err
			}
			if opts.WorkspaceID == "" {
				opts.WorkspaceID = cfg.WorkspaceID
			}
			if all {
				// Everything that arrived is printed; a walk that stopped
				// early or saw the list change says so and exits 1.
				var ds []api.Destination
				var walkErr error
				for d, err := range client.AllDestinations(c.Context(), opts.WorkspaceID, opts.Limit) {
					if err != nil {
						walkErr = err
						break
					}
					ds = append(ds, d)
				}
				if asJSON {
					a.json(encodeJSON(map[string]any{"data": ds, "total_count": len(ds)}))
				} else {
					printDestinations(a.out, ds, len(ds), 0)
				}
				return walkErr
			}
			page, err := client.ListDestinations(c.Context(), opts)
			if err != nil {
				return err
			}
			if asJSON {
				return a.json(page.Raw)
			}
			printDestinations(a.out, page.Data, page.TotalCount, offset)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&workspace, "workspace", "", "workspace id (UUID); default: the configured workspace_id, else the key's default workspace")
	f.IntVar(&offset, "offset", 0, "records to skip (at least 0)")
	f.IntVar(&limit, "limit", 0, "page size, 1 to 100 (default: the server's; 100 with --all)")
	f.BoolVar(&all, "all", false, "walk every page")
	f.BoolVar(&asJSON, "json", false, "print what the server sent (with --all: every destination, as sent, in one data array)")
	return c
}

func printDestinations(w io.Writer, ds []api.Destination, total, offset int) {
	t := newTable(w)
	t.row("NAME", "TYPE", "ENABLED", "SAMPLING", "REGIONS", "PRIVACY", "KEYS", "UPDATED", "ID")
	now := time.Now()
	for _, d := range ds {
		keys := "all keys"
		if d.APIKeyHashes != nil {
			keys = format.Plural(len(d.APIKeyHashes), "key", "keys")
		}
		updated := d.UpdatedAt
		if ts, err := time.Parse(time.RFC3339, d.UpdatedAt); err == nil {
			updated = format.Age(ts, now)
		}
		t.row(oneLine(d.DisplayName()), oneLine(d.Type), yesNo(d.Enabled), format.Percent(d.SamplingRate),
			oneLine(strings.Join(d.Regions, ",")), onOff(d.PrivacyMode), keys, oneLine(updated), oneLine(d.ID))
	}
	t.flush()
	if offset > 0 || len(ds) < total {
		fmt.Fprintf(w, "%d–%d of %d\n", offset+min(1, len(ds)), offset+len(ds), total)
	} else {
		fmt.Fprintf(w, "%d of %d\n", len(ds), total)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// boolFlag is a tri-state bool flag: unset, true or false.
type boolFlag struct{ v *bool }

func (b *boolFlag) String() string {
	if b.v == nil {
		return ""
	}
	return strconv.FormatBool(*b.v)
}
func (b *boolFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	b.v = &v
	return nil
}
func (b *boolFlag) Type() string     { return "bool" }
func (b *boolFlag) IsBoolFlag() bool { return true }

func (a *app) destUpdate() *cobra.Command {
	var (
		name, sampling, regions, hashes, rulesFile string
		allKeys, dryRun, asJSON, readOnly          bool
		configKV                                   []string
		enabled, privacy, bCost, bAlloc, bID, bCtx boolFlag
	)
	c := &cobra.Command{
		Use:   "update ID",
		Short: "Change a destination: only the fields given are sent",
		Args:  exactArgs(1, "a destination id"),
		RunE: func(c *cobra.Command, args []string) error {
			if !api.IsUUID(args[0]) {
				return inputErrorf("destination id %q: must be a UUID", args[0])
			}
			var p api.DestinationPatch
			if c.Flags().Changed("name") {
				p.Name = &name
			}
			p.Enabled, p.PrivacyMode = enabled.v, privacy.v
			p.BroadcastGenerationCost, p.BroadcastGenerationCostAllocation = bCost.v, bAlloc.v
			p.BroadcastGenerationIdentity, p.BroadcastGenerationRequestContext = bID.v, bCtx.v
			if c.Flags().Changed("sampling-rate") {
				v, err := strconv.ParseFloat(strings.TrimSuffix(sampling, "%"), 64)
				if err != nil {
					return inputErrorf("--sampling-rate %q: want a number from 0.0001 to 1", sampling)
				}
				if strings.HasSuffix(sampling, "%") {
					v /= 100
				}
				p.SamplingRate = &v
			}
			if c.Flags().Changed("regions") {
				p.Regions = format.SplitList(regions)
				if p.Regions == nil {
					p.Regions = []string{}
				}
			}
			switch {
			case allKeys && c.Flags().Changed("api-key-hashes"):
				return inputErrorf("--all-keys and --api-key-hashes cannot be combined")
			case allKeys:
				p.APIKeyHashes = api.Null[[]string]()
			case c.Flags().Changed("api-key-hashes"):
				p.APIKeyHashes = api.Value(format.SplitList(hashes))
			}
			for _, kv := range configKV {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return inputErrorf("--set %q: want member=value", kv)
				}
				if api.IsMasked(v) {
					return inputErrorf("--set %s: %q looks like a masked value; give the real value", k, v)
				}
				if p.Config == nil {
					p.Config = map[string]any{}
				}
				p.Config[k] = v
			}
			if c.Flags().Changed("filter-rules") {
				fr, err := a.readFilterRules(rulesFile)
				if err != nil {
					return err
				}
				p.FilterRules = fr
			}
			if err := p.Validate(); err != nil {
				return err
			}
			if dryRun {
				body, _ := api.PatchBody(p)
				return a.json(body)
			}
			cfg, client, err := a.managementClient()
			if err != nil {
				return err
			}
			if cfg.ReadOnly || readOnly {
				return inputErrorf("read-only: dest update is disabled (--read-only or read_only = true); --dry-run shows the body")
			}
			d, err := client.UpdateDestination(c.Context(), args[0], p)
			if err != nil {
				return err
			}
			if asJSON {
				return a.json(d.Raw)
			}
			printDestinations(a.out, []api.Destination{*d}, 1, 0)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&name, "name", "", "new name")
	f.Var(&enabled, "enabled", "enable or disable (--enabled=false)")
	f.StringVar(&sampling, "sampling-rate", "", "share of generations forwarded, 0.0001 to 1 (or 0.01% to 100%)")
	f.StringVar(&regions, "regions", "", "comma-separated regions: global, europe, us (eu = europe)")
	f.Var(&privacy, "privacy-mode", "forward only metadata, not bodies")
	f.StringVar(&hashes, "api-key-hashes", "", "comma-separated API key hashes allowed (at least one)")
	f.BoolVar(&allKeys, "all-keys", false, "allow every API key (sends api_key_hashes: null)")
	f.Var(&bCost, "broadcast-cost", "include cost and billing metadata")
	f.Var(&bAlloc, "broadcast-cost-allocation", "include per-token-kind cost allocation (beta)")
	f.Var(&bID, "broadcast-identity", "include identity metadata")
	f.Var(&bCtx, "broadcast-request-context", "include request-context metadata")
	f.StringArrayVar(&configKV, "set", nil, "config member=value to change (repeatable)")
	f.BoolVar(&readOnly, "read-only", false, "refuse to change anything (as read_only = true)")
	f.StringVar(&rulesFile, "filter-rules", "", `JSON file of filter rules, or "null" to clear them`)
	f.BoolVar(&dryRun, "dry-run", false, "print the PATCH body and send nothing")
	f.BoolVar(&asJSON, "json", false, "print the updated destination exactly as the server sent it")
	for _, n := range []string{"enabled", "privacy-mode", "broadcast-cost", "broadcast-cost-allocation", "broadcast-identity", "broadcast-request-context"} {
		f.Lookup(n).NoOptDefVal = "true"
	}
	return c
}

func (a *app) readFilterRules(name string) (api.Nullable[*api.FilterRules], error) {
	if name == "null" {
		return api.Null[*api.FilterRules](), nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return api.Nullable[*api.FilterRules]{}, inputErrorf("--filter-rules: %v", err)
	}
	var fr api.FilterRules
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fr); err != nil {
		return api.Nullable[*api.FilterRules]{}, inputErrorf("--filter-rules %s: %v", name, err)
	}
	return api.Value(&fr), nil
}
