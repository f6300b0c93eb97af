package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/receipt"
)

func (a *app) receiptCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "receipt ID -o FILE",
		Short: "Download a record's offline receipt (once it is anchored)",
		Long: `receipt downloads the record's offline receipt (provenant-receipt/v1, see
docs/receipt.md), checks it offline, and writes it to FILE ("-" for stdout).
Before the record is anchored the origin answers record_not_anchored
(exit 3): try again after the next batch.`,
		Args: exactArgs(1, "ID"),
		PreRunE: func(*cobra.Command, []string) error {
			if out == "" {
				return usagef("-o FILE is required (- for stdout)")
			}
			return nil
		},
		RunE: a.withClient(credNone, func(ctx context.Context, c *client.Client, args []string) error {
			b, err := c.ReceiptBytes(ctx, args[0])
			if err != nil {
				return err
			}
			if out == "-" {
				_, err = a.io.out.Write(append(b, '\n'))
				return err
			}
			if err := writeFileAtomic(out, b, 0o644); err != nil {
				return err
			}
			return a.output(map[string]string{"record_id": args[0], "file": out}, func() error {
				a.printf("Receipt of record %s written to %s.\n", args[0], out)
				return nil
			})
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (- for stdout)")
	return cmd
}

func (a *app) verifyReceiptCommand() *cobra.Command {
	var rpc string
	cmd := &cobra.Command{
		Use:   "verify-receipt FILE [--rpc URL]",
		Short: "Check an offline receipt, and with --rpc its anchor on a chain node (exit 0 valid, 1 not)",
		Long: `verify-receipt checks a receipt without asking the origin anything: the
record's signature, its leaf and its Merkle inclusion proof. With --rpc it
also checks the anchor through that Ethereum JSON-RPC endpoint (any node of
the chain: a public provider, your own node, or the origin's embedded
chain): the chain id, the transaction carrying the root, its block, and
that the block is canonical.

A receipt also carries the service's statement when the record's signing
key was revoked: a record anchored after the key's cutoff is reported
INVALID (not authentic) even though its proofs hold.

Exit code 0 when the receipt holds, 1 when it does not, 4 when the chain
node could not be read.`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := a.ctx(cmd)
			defer cancel()
			b, err := readBounded(args[0], receipt.MaxSize)
			if err != nil {
				return err
			}
			var chain *client.RPCChain
			if rpc != "" {
				chain = client.NewRPCChain(rpc, nil)
			}
			chk, err := client.VerifyReceipt(ctx, b, chain)
			if errors.Is(err, receipt.ErrChainUnavailable) && !errors.Is(err, receipt.ErrChain) {
				return &client.NetworkError{Method: "POST", URL: rpc, Err: err}
			}
			if err == nil && chk.KeyRevoked() {
				err = fmt.Errorf("the signing key was revoked: %s", chk.Receipt.KeyRevocation.Detail)
			}
			if a.asJSON {
				v := map[string]any{"valid": err == nil, "chain_checked": chk != nil && chk.ChainChecked}
				if chk != nil && chk.Receipt.KeyRevocation != nil {
					v["key_revocation"] = chk.Receipt.KeyRevocation
				}
				if err != nil {
					v["error"] = err.Error()
				}
				if chk != nil {
					v["record_id"], v["org_name"], v["timestamp"] = chk.Receipt.RecordID, chk.Result.Record.Org, chk.Result.Record.Timestamp
					v["merkle_root"], v["chain_id"], v["tx_hash"], v["block_number"] = chk.Receipt.MerkleRoot, chk.Receipt.ChainID, chk.Receipt.TxHash, chk.Receipt.BlockNumber
					if chk.ChainChecked {
						v["confirmations"] = chk.Confirmations()
					}
				}
				if perr := a.printJSON(v); perr != nil {
					return perr
				}
			} else if err != nil {
				a.printf("%s: INVALID: %v\n", args[0], err)
			} else {
				r := chk.Result.Record
				a.printf("%s: VALID receipt of record %s\n", args[0], chk.Receipt.RecordID)
				w := a.table()
				fmt.Fprintf(w, "  signed by\t%s (key %s…)\n", r.Org, chk.Receipt.SignerPublicKey[:16])
				fmt.Fprintf(w, "  file sha256\t%x\n", r.SHA256)
				fmt.Fprintf(w, "  signed at\t%s (the signer's clock)\n", r.Timestamp.Format("2006-01-02T15:04:05.000Z07:00"))
				fmt.Fprintf(w, "  merkle root\t%s (leaf %d of %d)\n", chk.Receipt.MerkleRoot, chk.Receipt.LeafIndex, chk.Receipt.TreeSize)
				fmt.Fprintf(w, "  anchor\tchain %d, tx %s, block %d\n", chk.Receipt.ChainID, chk.Receipt.TxHash, chk.Receipt.BlockNumber)
				if kr := chk.Receipt.KeyRevocation; kr != nil {
					fmt.Fprintf(w, "  signing key\trevoked at %s; record still valid: %s\n", kr.KeyRevokedAt, kr.Detail)
				}
				if chk.ChainChecked {
					fmt.Fprintf(w, "  chain check\tconfirmed by %s, %d confirmation(s)\n", rpc, chk.Confirmations())
				} else {
					fmt.Fprintf(w, "  chain check\tnot done (give --rpc URL to check the anchor on a node)\n")
				}
				w.Flush()
			}
			if err != nil {
				return errNotAuthentic
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&rpc, "rpc", "", "Ethereum JSON-RPC endpoint to check the anchor on")
	return cmd
}

// writeFileAtomic writes b to path through a temporary file in the same
// directory, synced and renamed, so a reader never sees a partial file.
func writeFileAtomic(path string, b []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".provenant-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
