package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/present"
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

// printVerdict prints r in the shared words (shared/present, as the
// widget and the web app show it): the headline, its explanation, what
// the verdict rests on, the provenance chain, and each check as passed,
// failed or not applicable with its reason.
func (a *app) printVerdict(name string, r *client.VerifyResponse, local bool, rejected int) {
	writeVerdict(a.io.out, name, r, local, rejected)
}

// checkMarks are the checks' tri-state marks: a check that does not apply
// is a dash, never the cross of a failure.
var checkMarks = map[present.State]string{present.StatePassed: "✓", present.StateFailed: "✗", present.StateNotApplicable: "–"}

// writeVerdict is printVerdict's text, on w.
func writeVerdict(out io.Writer, name string, r *client.VerifyResponse, local bool, rejected int) {
	p := client.Describe(r)
	fmt.Fprintf(out, "%s: %s\n", name, p.Headline)
	fmt.Fprintf(out, "  %s\n", p.Explanation)
	if p.Note != "" {
		fmt.Fprintf(out, "  %s\n", p.Note)
	}
	where := "by the origin (the file was uploaded)"
	if local {
		where = "on this machine (only the file's facts were sent)"
	}
	// "Signed and unchanged" would contradict "not authentic": a revoked
	// record's exact copy is the record's file, which no one vouches for.
	verdict := "not authentic; match: " + p.MatchText
	if r.Match == "exact" {
		verdict = "not authentic; match: the record's file, byte for byte"
	}
	if r.Authentic {
		verdict = fmt.Sprintf("authentic, confidence %.2f; match: %s", r.Confidence, p.MatchText)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "  verdict\t%s; computed %s\n", verdict, where)
	if p.Signer != "" {
		fmt.Fprintf(w, "  signer\t%s\n", p.Signer)
	}
	if r.RecordID != "" {
		fmt.Fprintf(w, "  record\t%s\n", r.RecordID)
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
	if p.Chain != "" {
		fmt.Fprintf(w, "  provenance\t%s\n", p.Chain)
	}
	if p.KeyRule != "" {
		fmt.Fprintf(w, "  signing key\t%s\n", p.KeyRule)
	}
	if r.Resembles != nil {
		fmt.Fprintf(w, "  resembles\t%s (%s): %s\n", r.Resembles.RecordID, r.Resembles.Relation, r.Resembles.Detail)
	}
	if rejected > 0 {
		fmt.Fprintf(w, "  warning\t%d candidate(s) from the origin did not check and were ignored\n", rejected)
	}
	w.Flush()
	fmt.Fprintln(out, "  checks")
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, c := range p.Checks {
		why := c.Summary
		if c.Reason != "" && c.Reason != c.Summary {
			why += ": " + c.Reason
		}
		fmt.Fprintf(w, "    %s %s\t%s\t%s\n", checkMarks[c.State], c.Label, strings.ReplaceAll(string(c.State), "_", " "), why)
	}
	w.Flush()
}
