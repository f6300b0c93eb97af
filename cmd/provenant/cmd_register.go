package main

import (
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/limits"
)

func (a *app) registerCommand() *cobra.Command {
	var keyPath, org string
	var bf batchFlags
	cmd := &cobra.Command{
		Use:   "register FILE...|DIR... --key device.key",
		Short: "Sign files on this machine with a device key and register them (the files are not sent)",
		Long: `register signs each file on this machine with a device key (see 'provenant
keys signing create --device-key'): the watermark is embedded and the
record signed here, and only the record (hashes, watermark payload,
signature) is registered with the origin. The signed file is written as
NAME.signed.jpg or NAME.signed.png, next to the original or into -o DIR,
like sign, and only after the origin accepted the record.

The record covers the organisation name, which must be the account's
exactly: it is taken from the last login, or --org.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bf.check("register", args); err != nil {
				return err
			}
			if keyPath == "" {
				return usagef("--key device.key is required")
			}
			if org == "" {
				org = a.cfg.OrgName
			}
			if org == "" {
				return usagef("no organisation name: run 'provenant login' once, or pass --org exactly as the account spells it")
			}
			dk, priv, err := loadDeviceKey(keyPath)
			if err != nil {
				return err
			}
			return a.signFiles(cmd, args, imageExts, bf, "registering ", func(ctx context.Context, c *client.Client, j signJob) signResult {
				return a.registerOne(ctx, c, j, dk, priv, org, bf.force)
			})
		},
	}
	bf.register(cmd)
	cmd.Flags().StringVar(&keyPath, "key", "", "device key file (required)")
	cmd.Flags().StringVar(&org, "org", "", "the account's organisation name (default: from the last login)")
	return cmd
}

func (a *app) registerOne(ctx context.Context, c *client.Client, j signJob, dk deviceKeyFile, priv ed25519.PrivateKey, org string, force bool) signResult {
	res := signResult{File: j.src}
	if !force {
		if p := existingOutput(j); p != "" {
			res.Status, res.Output = "skipped", p
			return res
		}
	}
	lim := limits.Default()
	b, err := readBounded(j.src, lim.MaxUploadBytes)
	if err != nil {
		return res.fail(err)
	}
	ls, rec, err := c.SignLocal(ctx, client.LocalSignRequest{
		File: b, Filename: filepath.Base(j.src), Key: priv, SigningKeyID: dk.SigningKeyID,
		OrgName: org, OriginType: dk.OriginType, Limits: lim,
	})
	if err != nil {
		return res.fail(err)
	}
	if err := os.MkdirAll(j.outDir, 0o755); err != nil {
		return res.fail(err)
	}
	out := filepath.Join(j.outDir, j.stem+ls.Ext)
	if err := writeFileAtomic(out, ls.File, 0o644); err != nil {
		return res.fail(err)
	}
	res.Status, res.Output, res.RecordID, res.SHA256 = "registered", out, rec.ID, rec.SHA256
	return res
}
