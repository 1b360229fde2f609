// Command gwdash is a terminal dashboard and command-line client for a Model
// Inference Gateway. All wiring lives in package cmd.
package main

import "github.com/gwdash/gwdash/cmd"

func main() {
	cmd.Execute()
}
