package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
)

func (a *app) webhooksCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Manage webhooks (API key with the webhooks scope)"}
	printHook := func(h *client.Webhook) error {
		return a.output(h, func() error {
			a.printf("%s  %s  events %s  active %t\n", h.ID, h.URL, strings.Join(h.Events, ","), h.Active)
			if h.Secret != "" {
				a.printf("secret %s (shown once: keep it to check delivery signatures)\n", h.Secret)
			}
			return nil
		})
	}
	list := &cobra.Command{
		Use: "list", Short: "List webhooks", Args: exactArgs(0),
		RunE: listAll(a, credAPIKey, (*client.Client).ListWebhooks, "ID\tURL\tEVENTS\tACTIVE", func(w io.Writer, h client.Webhook) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%t\n", h.ID, h.URL, strings.Join(h.Events, ","), h.Active)
		}),
	}
	var events []string
	create := &cobra.Command{
		Use: "create URL", Short: "Create a webhook (the secret is shown once)", Args: exactArgs(1, "URL"),
		RunE: a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, args []string) error {
			h, err := c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: args[0], Events: events})
			if err != nil {
				return err
			}
			return printHook(h)
		}),
	}
	create.Flags().StringSliceVar(&events, "event", nil, "content.signed, batch.anchored, content.verified (default all)")
	show := &cobra.Command{
		Use: "show ID", Short: "Show a webhook", Args: exactArgs(1, "ID"),
		RunE: onID(a, credAPIKey, (*client.Client).Webhook, printHook),
	}
	var upURL string
	var upEvents []string
	var upActive bool
	var update *cobra.Command
	update = &cobra.Command{
		Use: "update ID [--url URL] [--event E]... [--active=false]", Short: "Change a webhook", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, args []string) error {
			var req client.UpdateWebhookRequest
			if update.Flags().Changed("url") {
				req.URL = &upURL
			}
			if update.Flags().Changed("event") {
				req.Events = &upEvents
			}
			if update.Flags().Changed("active") {
				req.Active = &upActive
			}
			if req == (client.UpdateWebhookRequest{}) {
				return usagef("nothing to change: give --url, --event or --active")
			}
			h, err := c.UpdateWebhook(ctx, args[0], req)
			if err != nil {
				return err
			}
			return printHook(h)
		}),
	}
	update.Flags().StringVar(&upURL, "url", "", "new URL")
	update.Flags().StringSliceVar(&upEvents, "event", nil, "new event list")
	update.Flags().BoolVar(&upActive, "active", true, "deliver (true) or pause (false)")
	del := &cobra.Command{
		Use: "delete ID", Short: "Delete a webhook and its deliveries", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, args []string) error {
			if err := c.DeleteWebhook(ctx, args[0]); err != nil {
				return err
			}
			return a.done(args[0], "deleted", "Deleted webhook "+args[0]+".")
		}),
	}
	rotate := &cobra.Command{
		Use: "rotate-secret ID", Short: "Issue a new secret (the old one signs too for 24 h)", Args: exactArgs(1, "ID"),
		RunE: onID(a, credAPIKey, (*client.Client).RotateWebhookSecret, printHook),
	}
	var status string
	deliveries := &cobra.Command{
		Use: "deliveries ID", Short: "List a webhook's deliveries, newest first", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credAPIKey, func(ctx context.Context, c *client.Client, args []string) error {
			page, err := c.ListDeliveries(ctx, args[0], status, client.PageOptions{})
			if err != nil {
				return err
			}
			return a.outputTable(page, "ID\tEVENT\tSTATUS\tATTEMPTS\tCREATED\tLAST ERROR", func(w io.Writer) {
				for _, d := range page.Items {
					fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.Event, d.Status, len(d.Attempts), fmtTime(&d.CreatedAt), d.LastError)
				}
			})
		}),
	}
	deliveries.Flags().StringVar(&status, "status", "", "pending, succeeded or failed")
	retry := &cobra.Command{
		Use: "retry DELIVERY_ID", Short: "Retry a failed delivery now", Args: exactArgs(1, "DELIVERY_ID"),
		RunE: onID(a, credAPIKey, (*client.Client).RetryDelivery, func(d *client.Delivery) error {
			return a.output(d, func() error {
				a.printf("Delivery %s queued (%s).\n", d.ID, d.Status)
				return nil
			})
		}),
	}
	cmd.AddCommand(list, create, show, update, del, rotate, deliveries, retry)
	return cmd
}
