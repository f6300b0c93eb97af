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

// onID is the RunE of a command that acts on the one ID it is given: get
// calls the origin with it (a method expression such as
// (*client.Client).Webhook), and show prints what came back.
func onID[T any](a *app, need credential, get func(*client.Client, context.Context, string) (T, error), show func(T) error) func(*cobra.Command, []string) error {
	return a.withClient(need, func(ctx context.Context, c *client.Client, args []string) error {
		v, err := get(c, ctx, args[0])
		if err != nil {
			return err
		}
		return show(v)
	})
}

// listAll is the RunE of a list command: every page of list, printed as
// JSON under --json, else as a table under header with one row per item.
func listAll[T any](a *app, need credential, list func(*client.Client, context.Context, client.PageOptions) (*client.Page[T], error), header string, row func(w io.Writer, item T)) func(*cobra.Command, []string) error {
	return a.withClient(need, func(ctx context.Context, c *client.Client, _ []string) error {
		items, err := collect(client.All(ctx, func(ctx context.Context, p client.PageOptions) (*client.Page[T], error) { return list(c, ctx, p) }))
		if err != nil {
			return err
		}
		return a.outputTable(items, header, func(w io.Writer) {
			for _, it := range items {
				row(w, it)
			}
		})
	})
}

// done prints that the object id is now in status: {"id","status"} under
// --json, else text.
func (a *app) done(id, status, text string) error {
	return a.output(map[string]string{"id": id, "status": status}, func() error {
		a.printf("%s\n", text)
		return nil
	})
}
