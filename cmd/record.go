package cmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/config"
	"github.com/gwdash/gwdash/internal/record"
)

// store is this machine's record (nil when there is no state directory).
func (a *app) store() *record.Store {
	dir, err := config.StateDir(a.env)
	if err != nil {
		return nil
	}
	return record.Open(dir)
}

// gatewayKey names a gateway in the record (the rule is record.Key).
func gatewayKey(c *api.Client) string { return record.Key(c.BaseURL()) }

// remember records batch snapshots seen from here (failures to write the
// record are not the command's failure).
func (a *app) remember(c *api.Client, bs ...*api.Batch) {
	now := time.Now()
	rs := make([]record.Batch, 0, len(bs))
	for _, b := range bs {
		if b != nil && b.ID != "" {
			rs = append(rs, record.FromAPI(b, now))
		}
	}
	a.store().Remember(gatewayKey(c), rs...)
}

// confirm asks a yes/no question on a terminal, default No. Without a
// terminal on stdin it refuses (exit 2), naming the flag that answers yes.
func (a *app) confirm(question, yesFlag string) error {
	if !a.io.InTTY {
		return inputErrorf("%s: refusing without %s, since stdin is not a terminal to ask on", question, yesFlag)
	}
	fmt.Fprintf(a.errw, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.io.In).ReadString('\n')
	if err != nil && err != io.EOF {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &exitError{code: ExitFailure, msg: "not done: the answer was no"}
}
