package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/gwdash/gwdash/internal/textsafe"
	"github.com/spf13/cobra"
)

func (a *app) destCommand() *cobra.Command {
	c := &cobra.Command{Use: "dest", Aliases: []string{"destinations"}, Short: "List, show, create, update and delete observability destinations (management key)", Args: cobra.NoArgs,
		RunE: needsCommand("list, get, create, update or delete")}
	c.AddCommand(a.destList(), a.destGet(), a.destCreate(), a.destUpdate(), a.destDelete())
	return c
}

// destID checks a destination id typed by the user before anything is
// sent.
func destID(id string) error {
	if !api.IsUUID(id) {
		return inputErrorf("destination id %q: must be a UUID", format.Middle(id, 64))
	}
	return nil
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
				a.store().SeeDestinations(gatewayKey(client), ds...)
				if asJSON {
					a.jsonLines(ds)
				} else {
					printDestinations(a.out, ds, len(ds), 0)
				}
				return walkErr
			}
			page, err := client.ListDestinations(c.Context(), opts)
			if err != nil {
				return err
			}
			a.store().SeeDestinations(gatewayKey(client), page.Data...)
			if asJSON {
				return a.jsonLines(page.Data)
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
	f.BoolVar(&asJSON, "json", false, "one JSON object per line, each destination as the server sent it (as every list command prints)")
	return c
}

// jsonLines prints destinations as every list command prints its items:
// one JSON object per line, as the server sent it.
func (a *app) jsonLines(ds []api.Destination) error {
	for _, d := range ds {
		raw := d.Raw
		if len(raw) == 0 {
			raw = encodeJSON(d)
		}
		if err := a.json(raw); err != nil {
			return err
		}
	}
	return nil
}

func printDestinations(w io.Writer, ds []api.Destination, total, offset int) {
	if len(ds) == 0 {
		if offset > 0 {
			fmt.Fprintf(w, "no destinations at offset %d (%d in all)\n", offset, total)
		} else {
			fmt.Fprintln(w, "no destinations")
		}
		return
	}
	t := newTable(w)
	t.row("NAME", "TYPE", "ENABLED", "SAMPLING", "REGIONS", "PRIVACY", "KEYS", "UPDATED", "ID")
	now := time.Now()
	for _, d := range ds {
		t.row(textsafe.Visible(d.DisplayName()), oneLine(d.Type), onOff(d.Enabled), format.Percent(d.SamplingRate),
			oneLine(strings.Join(d.Regions, ",")), onOff(d.PrivacyMode), keysText(d.APIKeyHashes), oneLine(updatedAge(d.UpdatedAt, now)), oneLine(d.ID))
	}
	t.flush()
	if offset > 0 || len(ds) < total {
		fmt.Fprintf(w, "%d–%d of %d\n", offset+min(1, len(ds)), offset+len(ds), total)
	} else {
		fmt.Fprintf(w, "%d of %d\n", len(ds), total)
	}
}

func keysText(hs []string) string {
	if hs == nil {
		return "all keys"
	}
	return format.Plural(len(hs), "key", "keys")
}

func updatedAge(at string, now time.Time) string {
	if ts, err := time.Parse(time.RFC3339, at); err == nil {
		return format.Age(ts, now)
	}
	return at
}

// printDestination writes one destination in full (secrets as the server
// masks them).
func printDestination(w io.Writer, d *api.Destination) {
	t := newTable(w)
	t.row("name", textsafe.Visible(d.DisplayName()))
	t.row("id", oneLine(d.ID))
	t.row("type", oneLine(d.Type))
	t.row("workspace", oneLine(d.WorkspaceID))
	t.row("sampling", format.Percent(d.SamplingRate))
	t.row("regions", oneLine(strings.Join(d.Regions, ", ")))
	for _, f := range api.DestinationBools {
		t.row(f.Label, onOff(f.Get(d)))
	}
	t.row("keys", keysText(d.APIKeyHashes))
	rules := "none"
	if d.FilterRules != nil {
		b, _ := json.Marshal(d.FilterRules)
		rules = string(b)
	}
	t.row("filter rules", oneLine(rules))
	for _, k := range d.ConfigKeys() {
		v := d.Config[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		t.row("config."+oneLine(k), oneLine(s))
	}
	t.row("created", oneLine(d.CreatedAt))
	t.row("updated", oneLine(d.UpdatedAt))
	t.flush()
}

func onOff(b bool) string { return format.OnOff(b) }

// boolFlag is a tri-state bool flag: unset, true or false.
type boolFlag struct{ v *bool }

func (b *boolFlag) String() string {
	if b.v == nil {
		return ""
	}
	return strconv.FormatBool(*b.v)
}
func (b *boolFlag) Set(s string) error {
	v, err := api.ParseOnOff("", s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	b.v = &v
	return nil
}
func (b *boolFlag) Type() string     { return "bool" }
func (b *boolFlag) IsBoolFlag() bool { return true }

// boolFlags registers a tri-state flag for each boolean member a command
// can set (declared once in api.DestinationBools).
func boolFlags(c *cobra.Command, create bool) map[string]*boolFlag {
	out := map[string]*boolFlag{}
	for _, f := range api.DestinationBools {
		if create && f.Create == nil {
			continue
		}
		bf := &boolFlag{}
		out[f.Name] = bf
		about := f.About + " (--" + f.Flag + "=false to turn off)"
		if create {
			defaults := api.NewDestinationDefaults()
			about = f.About + " (default " + onOff(f.Get(&defaults)) + "; --" + f.Flag + "=false turns it off)"
		}
		c.Flags().Var(bf, f.Flag, about)
		c.Flags().Lookup(f.Flag).NoOptDefVal = "true"
	}
	return out
}

func (a *app) destGet() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "get ID",
		Short: "Show one destination",
		Args:  exactArgs(1, "a destination id"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := destID(args[0]); err != nil {
				return err
			}
			_, client, err := a.managementClient()
			if err != nil {
				return err
			}
			d, err := client.GetDestination(c.Context(), args[0])
			if err != nil {
				return err
			}
			a.store().SeeDestinations(gatewayKey(client), *d)
			if asJSON {
				return a.json(d.Raw)
			}
			printDestination(a.out, d)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the destination exactly as the server sent it")
	return c
}

// configFlags reads --set member=value, --set-from-env member=ENVVAR and
// --set-from-stdin member (so that secrets need not be typed where a shell
// history keeps them).
type configFlags struct {
	set, fromEnv []string
	fromStdin    string
}

func (cf *configFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.StringArrayVar(&cf.set, "set", nil, "config member=value (repeatable)")
	f.StringArrayVar(&cf.fromEnv, "set-from-env", nil, "config member=ENVVAR: the value of an environment variable (repeatable)")
	f.StringVar(&cf.fromStdin, "set-from-stdin", "", "config member whose value is the first line of stdin")
}

// read returns the members given, refusing masked values.
func (cf *configFlags) read(a *app) (map[string]any, error) {
	cfg := map[string]any{}
	for _, kv := range cf.set {
		k, v, err := api.ParseAssignment("--set", kv)
		if err != nil {
			return nil, err
		}
		// a value that starts with { or [ is JSON, as in the dashboard's form
		val, err := api.ParseMemberValue(k, v, nil)
		if err != nil {
			return nil, err
		}
		cfg[k] = val
	}
	for _, kv := range cf.fromEnv {
		k, name, err := api.ParseAssignment("--set-from-env", kv)
		if err != nil {
			return nil, err
		}
		v := a.env(name)
		if v == "" {
			return nil, inputErrorf("--set-from-env %s: the environment variable %s is empty or not set", k, name)
		}
		cfg[k] = v
	}
	if cf.fromStdin != "" {
		line, err := bufio.NewReader(a.io.In).ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, inputErrorf("--set-from-stdin: cannot read stdin: %s", present.Plain(err))
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return nil, inputErrorf("--set-from-stdin %s: stdin gave an empty line", cf.fromStdin)
		}
		cfg[cf.fromStdin] = line
	}
	for k, v := range cfg {
		if s, ok := v.(string); ok && api.IsMasked(s) {
			return nil, inputErrorf("config.%s: %q looks like a masked value; give the real value", k, s)
		}
	}
	return cfg, nil
}

func (a *app) destCreate() *cobra.Command {
	var (
		typ, name, sampling, hashes, rulesFile, workspace string
		asJSON, dryRun                                    bool
		cf                                                configFlags
		bools                                             map[string]*boolFlag
	)
	c := &cobra.Command{
		Use:   "create --type TYPE --name NAME --set member=value ...",
		Short: "Create a destination; the type's required config members are checked first",
		Long: `Create a destination. The config members a type requires are checked before
anything is sent, and every missing one is named. Secrets can come from the
environment (--set-from-env apiKey=DD_API_KEY) or from stdin
(--set-from-stdin secretKey) so that they stay out of shell history. A type
gwdash does not know is sent as given (--set for each member). Every switch
is sent: a new destination is enabled unless --enabled=off, as in the
dashboard. A webhook's url must be http(s) with a host, and its headers a
JSON object of strings (--set 'headers={"X-Team":"infra"}').

Types: ` + typeList(),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := cf.read(a)
			if err != nil {
				return err
			}
			d := api.DestinationCreate{Type: typ, Name: name, Config: cfg, WorkspaceID: workspace}
			if c.Flags().Changed("sampling-rate") {
				v, err := api.ParseSamplingRate(sampling)
				if err != nil {
					return err
				}
				d.SamplingRate = &v
			}
			if c.Flags().Changed("api-key-hashes") {
				hs, err := api.ParseKeyHashes(hashes)
				if err != nil {
					return err
				}
				d.APIKeyHashes = hs
			}
			if rulesFile != "" {
				fr, err := a.readFilterRules(rulesFile)
				if err != nil {
					return err
				}
				d.FilterRules = fr.Get()
			}
			// Every switch is sent, given or not: a new destination
			// starts as it does in the dashboard (api.NewDestinationDefaults).
			defaults := api.NewDestinationDefaults()
			for _, f := range api.DestinationBools {
				if bf := bools[f.Name]; bf != nil {
					v := f.Get(&defaults)
					if bf.v != nil {
						v = *bf.v
					}
					f.Create(&d, &v)
				}
			}
			if err := d.Validate(); err != nil {
				return err
			}
			if dryRun {
				body, _ := json.Marshal(d)
				return a.json(maskSecrets(body, typ))
			}
			cfgr, client, err := a.managementClient()
			if err != nil {
				return err
			}
			if err := refuseWrite(cfgr, present.WriteDestCreate); err != nil {
				return err
			}
			if d.WorkspaceID == "" {
				d.WorkspaceID = cfgr.WorkspaceID
			}
			out, err := client.CreateDestination(c.Context(), d)
			if err != nil {
				return err
			}
			a.store().SeeDestinations(gatewayKey(client), *out)
			if asJSON {
				return a.json(out.Raw)
			}
			fmt.Fprintln(a.errw, "created "+oneLine(out.DisplayName())+" ("+oneLine(out.ID)+")")
			printDestination(a.out, out)
			return nil
		},
	}
	bools = boolFlags(c, true)
	f := c.Flags()
	f.StringVar(&typ, "type", "", "destination type (see the list above)")
	f.StringVar(&name, "name", "", "a name for it")
	f.StringVar(&sampling, "sampling-rate", "", "share of generations forwarded, 0.0001 to 1 (or 0.01% to 100%)")
	f.StringVar(&hashes, "api-key-hashes", "", "only these API key hashes, comma-separated (default: all keys)")
	f.StringVar(&rulesFile, "filter-rules", "", "JSON file of filter rules")
	f.StringVar(&workspace, "workspace", "", "workspace id (UUID); default: the configured workspace_id, else the key's default")
	f.BoolVar(&dryRun, "dry-run", false, "print the body (secrets masked) and send nothing")
	f.BoolVar(&asJSON, "json", false, "print the created destination exactly as the server sent it")
	cf.register(c)
	return c
}

func typeList() string {
	var parts []string
	for _, t := range api.DestinationTypeSpecs {
		parts = append(parts, t.Name+" ("+strings.Join(t.Required, ", ")+")")
	}
	return strings.Join(parts, ", ")
}

// maskSecrets masks the secret config members of a body, for showing it.
func maskSecrets(body []byte, typ string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	spec, known := api.TypeSpec(typ)
	if cfg, ok := m["config"].(map[string]any); ok {
		for k, v := range cfg {
			s, isString := v.(string)
			if isString && (known && spec.IsSecret(k) || !known && api.IsSecretMember(k)) {
				cfg[k] = api.MaskSecret(s)
			}
		}
	}
	return encodeJSON(m)
}

func (a *app) destUpdate() *cobra.Command {
	var (
		name, sampling, regions, hashes, rulesFile string
		allKeys, dryRun, asJSON, force             bool
		cf                                         configFlags
		flags                                      map[string]*boolFlag
	)
	c := &cobra.Command{
		Use:   "update ID",
		Short: "Change a destination: only the fields given are sent",
		Long: `Change a destination: only the fields given are sent. If the destination
changed on the server since it was last listed or shown here (someone else
edited it), the update is refused with the differences, unless --force.`,
		Args: exactArgs(1, "a destination id"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := destID(args[0]); err != nil {
				return err
			}
			var p api.DestinationPatch
			if c.Flags().Changed("name") {
				p.Name = &name
			}
			for _, f := range api.DestinationBools {
				if bf := flags[f.Name]; bf.v != nil {
					f.Patch(&p, bf.v)
				}
			}
			if c.Flags().Changed("sampling-rate") {
				v, err := api.ParseSamplingRate(sampling)
				if err != nil {
					return err
				}
				p.SamplingRate = &v
			}
			if c.Flags().Changed("regions") {
				rs, err := api.ParseRegions(regions)
				if err != nil {
					return err
				}
				p.Regions = rs
			}
			switch {
			case allKeys && c.Flags().Changed("api-key-hashes"):
				return inputErrorf("--all-keys and --api-key-hashes cannot be combined")
			case allKeys:
				p.APIKeyHashes = api.Null[[]string]()
			case c.Flags().Changed("api-key-hashes"):
				hs, err := api.ParseKeyHashes(hashes)
				if err != nil {
					return err
				}
				p.APIKeyHashes = api.Value(hs)
			}
			cfg, err := cf.read(a)
			if err != nil {
				return err
			}
			if len(cfg) > 0 {
				p.Config = cfg
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
			cfgr, client, err := a.managementClient()
			if err != nil {
				return err
			}
			if err := refuseWrite(cfgr, present.WriteDestUpdate); err != nil {
				return err
			}
			if !force {
				if err := a.checkUnchanged(c, client, args[0], p); err != nil {
					return err
				}
			}
			d, err := client.UpdateDestination(c.Context(), args[0], p)
			if err != nil {
				return err
			}
			a.store().SeeDestinations(gatewayKey(client), *d)
			if asJSON {
				return a.json(d.Raw)
			}
			printDestinations(a.out, []api.Destination{*d}, 1, 0)
			return nil
		},
	}
	flags = boolFlags(c, false)
	f := c.Flags()
	f.StringVar(&name, "name", "", "new name")
	f.StringVar(&sampling, "sampling-rate", "", "share of generations forwarded, 0.0001 to 1 (or 0.01% to 100%)")
	f.StringVar(&regions, "regions", "", "comma-separated regions: "+api.RegionWords)
	f.StringVar(&hashes, "api-key-hashes", "", "comma-separated API key hashes allowed (at least one)")
	f.BoolVar(&allKeys, "all-keys", false, "allow every API key (sends api_key_hashes: null)")
	f.StringVar(&rulesFile, "filter-rules", "", `JSON file of filter rules, or "null" to clear them`)
	f.BoolVar(&dryRun, "dry-run", false, "print the PATCH body and send nothing")
	f.BoolVar(&asJSON, "json", false, "print the updated destination exactly as the server sent it")
	f.BoolVar(&force, "force", false, "apply even if the destination changed on the server since it was last seen here")
	cf.register(c)
	return c
}

// checkUnchanged refuses an update when the destination changed on the
// server since this machine last saw it, printing three columns: as it
// was seen, as it is now, and what the update sends.
func (a *app) checkUnchanged(c *cobra.Command, client *api.Client, id string, p api.DestinationPatch) error {
	seen, ok := a.store().Destination(gatewayKey(client), id)
	if !ok {
		return nil // never seen here: nothing to compare with
	}
	now, err := a.readAgain(c, client, id, seen.WorkspaceID)
	if err != nil {
		return err
	}
	if now == nil {
		return nil // no way to read it again: said on stderr, and the update goes on
	}
	if len(api.DiffDestinations(seen, now)) == 0 {
		return nil
	}
	t := newTable(a.errw)
	t.row("FIELD", "AS SEEN HERE", "ON THE SERVER NOW", "YOURS")
	for _, r := range api.ConflictRows(seen, now, p) {
		y := r.Yours
		if y == "" {
			y = "(unchanged)"
		}
		t.row(oneLine(r.Field), oneLine(r.Loaded), oneLine(r.Now), oneLine(y))
	}
	t.flush()
	return &exitError{code: ExitFailure, msg: "the destination changed on the server since it was last seen here (above): run dest get to see it, then update again, or --force to apply on top"}
}

// readAgain reads a destination again before a change. A server that
// offers no GET of one destination (404 or 405 there: the contract's four
// operations are all a server must offer) is read through its list; when
// that fails too, stderr says the conflict check is not available and
// nil, nil lets the update go on.
func (a *app) readAgain(c *cobra.Command, client *api.Client, id, workspace string) (*api.Destination, error) {
	now, err := client.GetDestination(c.Context(), id)
	if s := api.StatusOf(err); err == nil || s != http.StatusNotFound && s != http.StatusMethodNotAllowed {
		return now, err
	}
	for d, lerr := range client.AllDestinations(c.Context(), workspace, 100) {
		if lerr != nil {
			break
		}
		if d.ID == id {
			return &d, nil
		}
	}
	fmt.Fprintln(a.errw, "gwdash: note: the conflict check is not available (the server does not return this destination on its own or in its list); updating without it")
	return nil, nil
}

func (a *app) destDelete() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a destination (it stops receiving generations)",
		Long: `Delete a destination. It asks first on a terminal; with stdin not a terminal it
refuses unless --yes.`,
		Args: exactArgs(1, "a destination id"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := destID(args[0]); err != nil {
				return err
			}
			cfg, client, err := a.managementClient()
			if err != nil {
				return err
			}
			if err := refuseWrite(cfg, present.WriteDestDelete); err != nil {
				return err
			}
			if !yes {
				if err := a.confirm("delete destination "+args[0]+"?", "--yes"); err != nil {
					return err
				}
			}
			if err := client.DeleteDestination(c.Context(), args[0]); err != nil {
				return err
			}
			a.store().ForgetDestination(gatewayKey(client), args[0])
			fmt.Fprintln(a.out, "deleted "+args[0])
			return nil
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "do not ask")
	return c
}

func (a *app) readFilterRules(name string) (api.Nullable[*api.FilterRules], error) {
	if name == "null" {
		return api.Null[*api.FilterRules](), nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return api.Nullable[*api.FilterRules]{}, inputErrorf("--filter-rules: %s", present.Plain(err))
	}
	var fr api.FilterRules
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fr); err != nil {
		return api.Nullable[*api.FilterRules]{}, inputErrorf("--filter-rules %s: %s (want {\"enabled\": true, \"groups\": [...]}, or null)", name, present.Plain(err))
	}
	return api.Value(&fr), nil
}
