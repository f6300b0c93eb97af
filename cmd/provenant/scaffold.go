package main

import (
	"context"
	"fmt"
	"io"
	"iter"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
)

// withClient is the scaffolding of every command that calls the origin:
// the context bounded by --timeout and a client authenticated for need,
// built before run starts so that a missing credential is a usage error
// whatever the command.
func (a *app) withClient(need credential, run func(ctx context.Context, c *client.Client, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx, cancel := a.ctx(cmd)
		defer cancel()
		c, err := a.client(need)
		if err != nil {
			return err
		}
		return run(ctx, c, args)
	}
}

// output prints v as JSON under --json, else what text prints.
func (a *app) output(v any, text func() error) error {
	if a.asJSON {
		return a.printJSON(v)
	}
	return text()
}

// outputTable prints v as JSON under --json, else a table: the
// tab-separated header, then the rows rows writes.
func (a *app) outputTable(v any, header string, rows func(w io.Writer)) error {
	return a.output(v, func() error {
		w := a.table()
		fmt.Fprintln(w, header)
		rows(w)
		return w.Flush()
	})
}

// collect gathers every item of a paged listing, stopping at the first
// error.
func collect[T any](items iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for it, err := range items {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}
