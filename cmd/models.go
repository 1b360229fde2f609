package cmd

import (
	"fmt"
	"io"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
)

// catalogue reads the models catalogue through the one-hour disk cache.
func (a *app) catalogue(c *cobra.Command, client *api.Client, refresh bool) (*api.Catalogue, error) {
	dir, _ := config.CacheDir(a.env)
	return client.CachedModels(c.Context(), api.CataloguePath(dir, gatewayKey(client)), refresh)
}

func (a *app) modelsCommand() *cobra.Command {
	var search string
	var asJSON, refresh bool
	c := &cobra.Command{
		Use:   "models",
		Short: "List the models catalogue: id, context, prices per million tokens, modalities",
		Long: `List the gateway's models: id, context length, price per million input and
output tokens, and modalities. The catalogue is cached for an hour
(--refresh reads it again). "free" marks models that cost nothing, "router"
those whose price is that of the model a router picks.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, client, err := a.client(false)
			if err != nil {
				return err
			}
			cat, err := a.catalogue(c, client, refresh)
			if err != nil {
				return err
			}
			if cat.Truncated {
				fmt.Fprintf(a.errw, "gwdash: the server lists more models than gwdash keeps; only the first %s were read\n", format.Int(len(cat.Data)))
			}
			list := cat.Search(search)
			if asJSON {
				for _, m := range list {
					a.json(encodeJSON(m))
				}
				return nil
			}
			printModels(a.out, list)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&search, "search", "", "only models whose id or name contains every word")
	f.BoolVar(&asJSON, "json", false, "one JSON object per model per line")
	f.BoolVar(&refresh, "refresh", false, "read the catalogue from the server, not the cache")
	c.AddCommand(a.modelsEndpointsCommand()) // models_endpoints.go
	return c
}

func printModels(w io.Writer, list []api.Model) {
	t := newTable(w)
	t.row("ID", "CONTEXT", "INPUT $/M", "OUTPUT $/M", "MODALITIES", "")
	for i := range list {
		m := &list[i]
		t.row(oneLine(m.ID), present.ModelContext(m), present.Price(m.PriceOf("prompt")), present.Price(m.PriceOf("completion")), oneLine(m.Modalities()), present.ModelNote(m))
	}
	t.flush()
	fmt.Fprintln(w, format.Plural(len(list), "model", "models"))
}

func (a *app) keyCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "key",
		Short: "Show the API key's credit, usage, BYOK usage and rate limit (never the key)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, client, err := a.client(false)
			if err != nil {
				return err
			}
			if !client.HasAPIKey() && !client.HasManagementKey() {
				return inputErrorf("no key: set GWDASH_API_KEY (or a management key)")
			}
			k, raw, err := client.Key(c.Context())
			if err != nil {
				return err
			}
			return a.printRecord(asJSON, raw, present.KeyRows(k))
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print what the server sent")
	return c
}

func (a *app) generationCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "generation ID",
		Short: "Show a generation's record: provider, latency, tokens, cost",
		Args:  exactArgs(1, "a generation id (respond prints it)"),
		RunE: func(c *cobra.Command, args []string) error {
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			g, raw, err := client.GetGeneration(c.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printRecord(asJSON, raw, present.GenerationRows(g))
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print what the server sent")
	return c
}
