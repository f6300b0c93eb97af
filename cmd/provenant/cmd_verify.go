package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

func (a *app) verifyCommand() *cobra.Command {
	var local, report, orUpload bool
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Verify a file (exit 0 authentic, 1 not)",
		Long: `verify uploads FILE to the origin's verify endpoint and prints the verdict.

With --local the file never leaves this machine: its facts (SHA-256,
perceptual hashes, watermark) are computed here, only they are sent to
the lookup endpoint, and the candidates' signatures and Merkle proofs are
checked here before the verdict is computed with the same code the origin
runs. --report asks the origin to count the verification for the signer.
The local verifier reads pictures (JPEG, PNG, GIF, WebP) only: a video,
or any file it cannot read, stops with exit 5 and says so, unless
--or-upload is given, which then uploads that file to the origin's verify
instead (and says so on stderr).

Exit code 0 when the file is authentic, 1 when it is not.`,
		Args: exactArgs(1, "FILE"),
		RunE: a.withClient(credNone, func(ctx context.Context, c *client.Client, args []string) error {
			var resp *client.VerifyResponse
			var rejected int
			if local {
				lim := limits.Default()
				b, err := readBounded(args[0], lim.MaxUploadBytes)
				if err != nil {
					return err
				}
				lv, err := c.VerifyLocal(ctx, b, client.LocalOptions{Limits: lim, Report: report})
				var le *client.LocalError
				switch {
				case errors.As(err, &le) && le.Unsupported() && orUpload:
					// Said on stderr, so --json output stays one answer.
					fmt.Fprintf(a.io.err, "%s: %s; uploading it to the origin's verify instead (--or-upload; the origin does not keep it)\n",
						args[0], le.Message)
					local = false
				case errors.As(err, &le) && le.Unsupported():
					return fmt.Errorf("%s: %w; verify it without --local (the file is uploaded), or add --or-upload", args[0], err)
				case err != nil:
					return err
				default:
					resp, rejected = &lv.Response, len(lv.Rejected)
				}
			} else if report {
				return usagef("--report applies to --local (an upload always counts)")
			}
			if !local {
				up, err := client.FileUpload(args[0])
				if err != nil {
					return err
				}
				if resp, err = c.Verify(ctx, up); err != nil {
					return err
				}
			}
			if a.asJSON {
				if err := a.printJSON(resp); err != nil {
					return err
				}
			} else {
				a.printVerdict(args[0], resp, local, rejected)
			}
			if !resp.Authentic {
				return errNotAuthentic
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&local, "local", false, "verify on this machine: only the file's facts are sent")
	cmd.Flags().BoolVar(&report, "report", false, "with --local: count this verification for the signer")
	cmd.Flags().BoolVar(&orUpload, "or-upload", false, "with --local: upload a file this machine cannot analyse (a video) to the origin's verify")
	return cmd
}

// readBounded reads a whole file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}

func (a *app) printVerdict(name string, r *client.VerifyResponse, local bool, rejected int) {
	where := "origin"
	if local {
		where = "computed locally"
	}
	if r.Authentic {
		a.printf("%s: AUTHENTIC (confidence %.2f, match %s; %s)\n", name, r.Confidence, r.Match, where)
	} else {
		a.printf("%s: NOT AUTHENTIC (match %s; %s)\n", name, r.Match, where)
	}
	w := a.table()
	if r.RecordID != "" {
		fmt.Fprintf(w, "  record\t%s\n", r.RecordID)
	}
	if r.Signer != nil {
		fmt.Fprintf(w, "  signer\t%s\n", r.Signer.Display)
	}
	if r.Origin != nil {
		fmt.Fprintf(w, "  origin\t%s (declared by the signer)\n", r.Origin.Label)
	}
	if r.Timestamp != "" {
		fmt.Fprintf(w, "  time of record\t%s\n", r.Timestamp)
	}
	if r.ClaimedTimestamp != "" {
		fmt.Fprintf(w, "  claimed time\t%s\n", r.ClaimedTimestamp)
	}
	if r.BlockchainTx != "" {
		fmt.Fprintf(w, "  anchor tx\t%s\n", r.BlockchainTx)
	}
	if r.Resembles != nil {
		fmt.Fprintf(w, "  resembles\t%s (%s): %s\n", r.Resembles.RecordID, r.Resembles.Relation, r.Resembles.Detail)
	}
	for _, ck := range []struct {
		name string
		c    wire.Check
	}{{"sha256", r.Checks.SHA256}, {"watermark", r.Checks.Watermark}, {"perceptual hash", r.Checks.PerceptualHash}, {"blockchain", r.Checks.Blockchain}} {
		mark := "fail"
		if ck.c.Passed {
			mark = "pass"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", ck.name, mark, ck.c.Details)
	}
	if rejected > 0 {
		fmt.Fprintf(w, "  warning\t%d candidate(s) from the origin did not check and were ignored\n", rejected)
	}
	w.Flush()
}
