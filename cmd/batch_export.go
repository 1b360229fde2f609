package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/export"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/present"
	"github.com/spf13/cobra"
)

func (a *app) batchExport() *cobra.Command {
	var fmtName, output string
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a settled batch's results as JSON Lines or CSV, streamed",
		Long: `Write a settled batch's results as JSON Lines (each result as sent) or CSV
(columns ` + strings.Join(export.Columns, ", ") + `; quoted per RFC 4180).
The results are written as they arrive, in flat memory whatever the
batch's size. Without --output they go to stdout; with it, to FILE
(mode 0600), which appears only once the export is whole.`,
		Args: exactArgs(1, "a batch id"),
		RunE: func(c *cobra.Command, args []string) error {
			fmtName = strings.ToLower(fmtName)
			if fmtName != export.JSONL && fmtName != export.CSV {
				return inputErrorf("--format %q: must be %s", fmtName, strings.Join(export.Formats, " or "))
			}
			_, client, err := a.client(true)
			if err != nil {
				return err
			}
			out, done, err := a.exportTarget(output)
			if err != nil {
				return err
			}
			bw := bufio.NewWriterSize(out, 256<<10)
			x, _ := export.NewWriter(bw, fmtName)
			b, err := client.EachResult(c.Context(), args[0], x.Result)
			if b != nil {
				a.remember(client, b)
			}
			if err == nil {
				err = x.Finish()
			}
			if err == nil {
				err = bw.Flush()
			}
			if err = done(err); err != nil {
				if errors.Is(err, api.ErrNoResults) {
					return &exitError{code: ExitFailure, msg: fmt.Sprintf("batch is %s: results come when it reaches a terminal status", present.Status(b.Status))}
				}
				return client.Explain404(c.Context(), err)
			}
			if output != "" {
				fmt.Fprintf(a.errw, "exported %s to %s\n", format.Plural(x.N, "result", "results"), output)
			}
			return nil
		},
	}
	c.Flags().StringVar(&fmtName, "format", export.JSONL, "jsonl or csv")
	c.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	return c
}

// exportTarget is where an export goes: stdout, or a temporary file
// beside path that done renames to path on success and removes on
// failure (a failed export leaves no partial file).
func (a *app) exportTarget(path string) (io.Writer, func(error) error, error) {
	if path == "" {
		return a.io.Out, func(err error) error { return err }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, nil, inputErrorf("--output %s: %v", path, err)
	}
	done := func(err error) error {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
		if err == nil {
			if rerr := os.Rename(f.Name(), path); rerr != nil {
				err = fmt.Errorf("writing %s: %w", path, rerr)
			}
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return err
	}
	return f, done, nil
}
