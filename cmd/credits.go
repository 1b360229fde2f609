package cmd

import (
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
)

// creditsCommand prints the organisation's credit balance (GET /credits,
// management key).
func (a *app) creditsCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "credits",
		Short: "Show the organisation's credit balance: bought, used, left (management key)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, client, err := a.client(false)
			if err != nil {
				return err
			}
			if !client.HasManagementKey() {
				return inputErrorf("credits needs a management key: set GWDASH_MANAGEMENT_KEY, --management-key, or management_key / management_key_cmd in the config file")
			}
			cr, raw, err := client.Credits(c.Context())
			if err != nil {
				return err
			}
			return a.printRecord(asJSON, raw, [][2]string{
				{"balance", present.Balance(cr)}, {"bought", format.Cost(cr.TotalCredits)}, {"used", format.Cost(cr.TotalUsage)}})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print what the server sent")
	return c
}
