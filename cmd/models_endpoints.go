package cmd

import (
	"fmt"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
)

func (a *app) modelsEndpointsCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "endpoints MODEL",
		Short: "List the providers serving a model: prices, context, quantization, uptime, latency, throughput, status",
		Long: `List the endpoints of one model (GET /models/{author}/{slug}/endpoints):
each provider's price per million input and output tokens, context length,
quantization, uptime over the last day, median latency to the first token
and median throughput over the last 30 minutes, and status (ok, degraded,
unstable, down). Latency and throughput are sent to callers with a key
only. The names are what --provider-order, --provider-only and
--provider-ignore of "gwdash respond" take.`,
		Args: exactArgs(1, "a model, <provider>/<model>"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := api.ValidateModel(args[0]); err != nil {
				return err
			}
			_, client, err := a.client(false)
			if err != nil {
				return err
			}
			me, err := client.ModelEndpoints(c.Context(), args[0])
			if err != nil {
				return err
			}
			if me.Truncated {
				fmt.Fprintf(a.errw, "gwdash: the server lists more endpoints than gwdash keeps; only the first %s were read\n", format.Int(len(me.Endpoints)))
			}
			if asJSON {
				for _, e := range me.Endpoints {
					a.json(encodeJSON(e))
				}
				return nil
			}
			t := newTable(a.out)
			t.row(present.EndpointHeader...)
			for i := range me.Endpoints {
				row := present.EndpointRow(&me.Endpoints[i])
				for j := range row {
					row[j] = oneLine(row[j])
				}
				t.row(row...)
			}
			t.flush()
			fmt.Fprintln(a.out, format.Plural(len(me.Endpoints), "endpoint", "endpoints")+" of "+oneLine(me.ID))
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON object per endpoint per line")
	return c
}
