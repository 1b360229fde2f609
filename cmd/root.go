// Package cmd holds gwdash's commands and wires configuration, the API
// client and the dashboard together.
package cmd

import "os"

// Execute runs the command line and exits with its code.
func Execute() { os.Exit(0) }
