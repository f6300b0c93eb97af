package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
)

func (a *app) recordsCommand() *cobra.Command {
	var f client.RecordFilter
	var limit int
	var all bool
	list := a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, _ []string) error {
		if limit < 1 || limit > 100 {
			return usagef("--limit must be 1 to 100")
		}
		var items []client.Record
		next := ""
		if all {
			var err error
			items, err = collect(client.All(ctx, func(ctx context.Context, p client.PageOptions) (*client.Page[client.Record], error) {
				p.Limit = limit
				return c.ListRecords(ctx, f, p)
			}))
			if err != nil {
				return err
			}
		} else {
			page, err := c.ListRecords(ctx, f, client.PageOptions{Limit: limit})
			if err != nil {
				return err
			}
			items, next = page.Items, page.NextCursor
		}
		err := a.outputTable(client.Page[client.Record]{Items: items, NextCursor: next}, "ID\tCREATED\tFILE\tORIGIN TYPE\tSTATUS\tANCHORING\tSOURCE", func(w io.Writer) {
			for _, r := range items {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.CreatedAt, r.OriginalFilename, r.OriginType, r.Status, r.BlockchainStatus, r.Source)
			}
		})
		if err == nil && next != "" && !a.asJSON {
			a.printf("(more: --all lists every record)\n")
		}
		return err
	})
	cmd := &cobra.Command{
		Use:   "records",
		Short: "List, show and revoke your content records (API key)",
		Args:  exactArgs(0),
		RunE:  list,
	}
	addFilter := func(c *cobra.Command) {
		fl := c.Flags()
		fl.StringVar(&f.Status, "status", "", "active or revoked")
		fl.StringVar(&f.BlockchainStatus, "anchoring", "", "pending or anchored")
		fl.StringVar(&f.OriginType, "origin-type", "", "origin type code")
		fl.StringVar(&f.SHA256, "sha256", "", "the signed file's or the original's SHA-256")
		fl.StringVar(&f.From, "from", "", "created at or after (RFC 3339 or YYYY-MM-DD)")
		fl.StringVar(&f.To, "to", "", "created before (RFC 3339 or YYYY-MM-DD)")
		fl.IntVar(&limit, "limit", 50, "records per page (1-100)")
		fl.BoolVar(&all, "all", false, "list every page")
	}
	addFilter(cmd)
	ls := &cobra.Command{Use: "list", Short: "List your records (the default)", Args: exactArgs(0), RunE: list}
	addFilter(ls)
	show := &cobra.Command{
		Use: "show ID", Short: "Show everything stored about a record", Args: exactArgs(1, "ID"),
		RunE: onID(a, credAPIKey, (*client.Client).Record, func(r *client.RecordDetail) error {
			return a.output(r, func() error {
				w := a.table()
				for _, kv := range [][2]string{
					{"id", r.ID}, {"file", r.OriginalFilename}, {"sha256", r.SHA256}, {"original sha256", r.OriginalSHA256},
					{"perceptual hash", r.PerceptualHash}, {"watermark", r.WatermarkPayloadHex}, {"signer", r.Signer.Display},
					{"origin type", r.OriginType}, {"source", r.Source}, {"status", r.Status}, {"revoked at", r.RevokedAt},
					{"anchoring", r.Anchoring.Status + ": " + r.Anchoring.Detail}, {"anchor tx", r.BlockchainTx},
					{"created", r.CreatedAt}, {"parent", r.ParentRecordID},
				} {
					if kv[1] != "" {
						fmt.Fprintf(w, "%s\t%s\n", kv[0], kv[1])
					}
				}
				return w.Flush()
			})
		}),
	}
	var reason string
	revoke := &cobra.Command{
		Use: "revoke ID", Short: "Revoke a record (it then verifies as not authentic)", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, args []string) error {
			r, err := c.RevokeRecord(ctx, args[0], reason)
			if err != nil {
				return err
			}
			return a.output(r, func() error {
				a.printf("Revoked record %s at %s.\n", r.ID, r.RevokedAt)
				return nil
			})
		}),
	}
	revoke.Flags().StringVar(&reason, "reason", "", "why (shown to whoever verifies)")
	cert := &cobra.Command{
		Use: "certificate ID", Short: "Print a record's public certificate (JSON)", Args: exactArgs(1, "ID"),
		RunE: onID(a, credNone, (*client.Client).Certificate, func(r *client.Certificate) error { return a.printJSON(r) }),
	}
	var dlOut string
	download := &cobra.Command{
		Use: "download ID [-o FILE]", Short: "Download a record's signed file (checked against its SHA-256)", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credEither, func(ctx context.Context, c *client.Client, args []string) error {
			dir, name := ".", ""
			if dlOut != "" {
				dir, name = filepath.Dir(dlOut), filepath.Base(dlOut)
			}
			tmp, err := os.CreateTemp(dir, ".provenant-download-*")
			if err != nil {
				return err
			}
			defer os.Remove(tmp.Name())
			f, err := c.DownloadFile(ctx, args[0], tmp)
			if cerr := tmp.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if name == "" {
				name = f.Filename
				if name == "" || name == "." || name == "/" {
					name = args[0] + f.Ext()
				}
			}
			out := filepath.Join(dir, name)
			if err := os.Chmod(tmp.Name(), 0o644); err != nil {
				return err
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return err
			}
			return a.output(map[string]any{"record_id": args[0], "file": out, "sha256": f.SHA256, "size": f.Size}, func() error {
				a.printf("Signed file of record %s written to %s (%d bytes, sha256 %s).\n", args[0], out, f.Size, f.SHA256)
				return nil
			})
		}),
	}
	download.Flags().StringVarP(&dlOut, "output", "o", "", "file to write (default: the name the origin suggests, in the current directory)")
	cmd.AddCommand(ls, show, revoke, cert, download)
	return cmd
}
