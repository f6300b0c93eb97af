package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
)

func (a *app) keysCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys and signing keys (needs a session: provenant login)"}
	api := &cobra.Command{Use: "api", Short: "API keys: list, create, revoke"}
	api.AddCommand(a.apiKeysList(), a.apiKeysCreate(), a.apiKeysRevoke())
	sig := &cobra.Command{Use: "signing", Short: "Signing keys: list, create, revoke"}
	sig.AddCommand(a.signingKeysList(), a.signingKeysCreate(), a.signingKeysRevoke())
	cmd.AddCommand(api, sig)
	return cmd
}

func (a *app) table() *tabwriter.Writer { return tabwriter.NewWriter(a.io.out, 0, 4, 2, ' ', 0) }

func fmtTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func (a *app) apiKeysList() *cobra.Command {
	return &cobra.Command{
		Use: "list", Short: "List API keys", Args: exactArgs(0),
		RunE: listAll(a, credJWT, (*client.Client).ListAPIKeys, "ID\tNAME\tSCOPES\tLAST4\tCREATED\tLAST USED\tREVOKED", func(w io.Writer, k client.APIKey) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, strings.Join(k.Scopes, ","), k.Last4,
				fmtTime(&k.CreatedAt), fmtTime(k.LastUsedAt), fmtTime(k.RevokedAt))
		}),
	}
}

func (a *app) apiKeysCreate() *cobra.Command {
	var scopes []string
	var store bool
	cmd := &cobra.Command{
		Use: "create NAME", Short: "Create an API key (the secret is shown once)", Args: exactArgs(1, "NAME"),
		RunE: a.withClient(credJWT, func(ctx context.Context, c *client.Client, args []string) error {
			k, err := c.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: args[0], Scopes: scopes})
			if err != nil {
				return err
			}
			if store {
				if err := a.remember(func(cfg *fileConfig) { cfg.APIKey = k.Key }); err != nil {
					return err
				}
			}
			return a.output(k, func() error {
				a.printf("Created API key %s (%s, scopes %s).\n%s\n", k.ID, k.Name, strings.Join(k.Scopes, ","), k.Key)
				if store {
					a.printf("Stored in %s.\n", a.cfgPath)
				} else {
					a.printf("Keep it now: it is not shown again.\n")
				}
				return nil
			})
		}),
	}
	cmd.Flags().StringSliceVar(&scopes, "scope", nil, "scopes: sign, read, webhooks (repeat or comma-separate; default all)")
	cmd.Flags().BoolVar(&store, "store", false, "store the key in the config file")
	return cmd
}

func (a *app) apiKeysRevoke() *cobra.Command {
	return &cobra.Command{
		Use: "revoke ID", Short: "Revoke an API key", Args: exactArgs(1, "ID"),
		RunE: a.withClient(credJWT, func(ctx context.Context, c *client.Client, args []string) error {
			if err := c.RevokeAPIKey(ctx, args[0]); err != nil {
				return err
			}
			return a.done(args[0], "revoked", "Revoked API key "+args[0]+".")
		}),
	}
}

func (a *app) signingKeysList() *cobra.Command {
	return &cobra.Command{
		Use: "list", Short: "List signing keys", Args: exactArgs(0),
		RunE: listAll(a, credJWT, (*client.Client).ListSigningKeys, "ID\tNAME\tORIGIN TYPE\tCUSTODY\tDEVICE\tPUBLIC KEY\tCREATED\tREVOKED\tDEFAULT", func(w io.Writer, k client.SigningKey) {
			def := ""
			if k.ID == a.cfg.SigningKeyID {
				def = "*"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, k.Name, k.OriginType, k.Custody, k.DeviceID, k.PublicKeyHex[:min(16, len(k.PublicKeyHex))],
				fmtTime(&k.CreatedAt), fmtTime(k.RevokedAt), def)
		}),
	}
}

func (a *app) signingKeysCreate() *cobra.Command {
	var req client.CreateSigningKeyRequest
	var makeDefault bool
	var deviceKey string
	cmd := &cobra.Command{
		Use:   "create NAME --origin-type CODE [--device-key FILE]",
		Short: "Create a signing key held by the service, or a device key held here",
		Long: `create makes a signing key held by the service. It becomes the default key
of 'provenant sign' when none is set yet, or with --default.

With --device-key FILE the key pair is generated on this machine instead:
the private key is written to FILE (mode 0600; an existing file is not
replaced) and only the public key is sent. The service can never sign
with it; 'provenant register FILE --key FILE' signs on this machine.`,
		Args: exactArgs(1, "NAME"),
		PreRunE: func(*cobra.Command, []string) error {
			if req.OriginType == "" {
				return usagef("--origin-type is required (e.g. camera_image, ai_generated_image; see docs/api.md)")
			}
			return nil
		},
		RunE: a.withClient(credJWT, func(ctx context.Context, c *client.Client, args []string) error {
			req.Name = args[0]
			if deviceKey == "" {
				k, err := c.CreateSigningKey(ctx, req)
				if err != nil {
					return err
				}
				return a.signingKeyCreated(k, makeDefault)
			}
			if _, err := os.Stat(deviceKey); err == nil {
				return usagef("%s exists: not replacing a private key", deviceKey)
			}
			// The private key is written before the origin hears of the
			// public one, so that a registered key is never lost.
			dk, _, err := newDeviceKey(req.OriginType)
			if err != nil {
				return err
			}
			if err := saveDeviceKey(deviceKey, dk, false); err != nil {
				return err
			}
			req.PublicKeyHex = dk.PublicKeyHex
			k, err := c.CreateSigningKey(ctx, req)
			if err != nil {
				return err
			}
			dk.SigningKeyID = k.ID
			if err := saveDeviceKey(deviceKey, dk, true); err != nil {
				return err
			}
			return a.output(k, func() error {
				a.printf("Created device key %s (%s, %s), public key %s.\nThe private key is in %s (mode 0600) and nowhere else: 'provenant register FILE --key %s' signs with it.\n",
					k.ID, k.Name, k.OriginType, k.PublicKeyHex, deviceKey, deviceKey)
				return nil
			})
		}),
	}
	cmd.Flags().StringVar(&req.OriginType, "origin-type", "", "origin type code of what the key signs (required)")
	cmd.Flags().StringVar(&req.DeviceID, "device-id", "", "device identifier")
	cmd.Flags().StringVar(&req.DeviceInfo, "device-info", "", "device description")
	cmd.Flags().BoolVar(&makeDefault, "default", false, "make it the default key of sign")
	cmd.Flags().StringVar(&deviceKey, "device-key", "", "generate the key pair here and write the private key to this file")
	return cmd
}

// signingKeyCreated prints a new key and stores it as the default when
// asked or when there is none.
func (a *app) signingKeyCreated(k *client.SigningKey, makeDefault bool) error {
	isDefault := makeDefault || a.cfg.SigningKeyID == ""
	if isDefault {
		if err := a.remember(func(cfg *fileConfig) { cfg.SigningKeyID = k.ID }); err != nil {
			return err
		}
	}
	return a.output(k, func() error {
		a.printf("Created signing key %s (%s, %s), public key %s.\n", k.ID, k.Name, k.OriginType, k.PublicKeyHex)
		if isDefault {
			a.printf("It is now the default key of 'provenant sign'.\n")
		}
		return nil
	})
}

func (a *app) signingKeysRevoke() *cobra.Command {
	var reason, since string
	var req client.RevokeSigningKeyRequest
	cmd := &cobra.Command{
		Use:   "revoke ID [--reason R] [--compromised-since TIME]",
		Short: "Revoke a signing key (a leaked camera key)",
		Long: `revoke stops a signing key: it signs nothing any more. Its records are
judged by when they were anchored: those anchored before the cutoff stay
valid, later ones verify as not authentic. The cutoff is
--compromised-since (RFC 3339, e.g. 2026-03-04T10:00:00Z: from when the key
is believed to be in someone else's hands), else now.`,
		Args: exactArgs(1, "ID"),
		PreRunE: func(*cobra.Command, []string) error {
			req = client.RevokeSigningKeyRequest{Reason: reason}
			if since != "" {
				t, err := time.Parse(time.RFC3339Nano, since)
				if err != nil {
					return usagef("--compromised-since %q is not an RFC 3339 time", since)
				}
				req.CompromisedSince = &t
			}
			return nil
		},
		RunE: a.withClient(credJWT, func(ctx context.Context, c *client.Client, args []string) error {
			k, err := c.RevokeSigningKey(ctx, args[0], req)
			if err != nil {
				return err
			}
			return a.output(k, func() error {
				cutoff := k.RevokedAt
				if k.CompromisedSince != nil {
					cutoff = k.CompromisedSince
				}
				a.printf("Revoked signing key %s (%s) at %s. Its records anchored before %s stay valid; later ones are not authentic.\n",
					k.ID, k.Name, fmtTime(k.RevokedAt), fmtTime(cutoff))
				return nil
			})
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (shown with every decision about its records)")
	cmd.Flags().StringVar(&since, "compromised-since", "", "from when the key is considered compromised (RFC 3339; default now)")
	return cmd
}
