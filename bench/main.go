// Command bench is Provenant's benchmark harness: robustness tables for the
// watermark and the perceptual hash, and load generators against a running
// origin or edge. Results are written up in bench/README.md.
//
// Usage:
//
//	go run ./bench <command> [flags]
//
// Each command lives in its own file and prints its own -h.
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand of the harness.
type command struct {
	summary string
	run     func(args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"decode":         {"reduced-resolution verify decode vs full decode: watermark recovery and pHash distance per attack", runDecodeStudy},
		"phash":          {"perceptual-hash distance distributions: same image after JPEG/resize vs unrelated pairs", runPhash},
		"robustness":     {"watermark robustness table: every image × every attack", runRobustness},
		"wm":             {"file-level watermark tool: wm embed | wm extract", runWM},
		"verify":         {"load generator: POST /api/v1/verify against a running origin, next to the decode-only ceiling", runVerify},
		"sign":           {"load generator: POST /api/v1/sign against a running origin", runSign},
		"badge":          {"GET load on one path (a badge) at an edge and at its origin, alternating rounds: requests/s and the ratio", runBadge},
		"integrity-cost": {"cost of the local-signature comparison (luminance vs colour) against a 12 MP JPEG decode", runIntegrityCost},
		"integrity":      {"verdict integrity: genuine copies vs local forgeries and transplanted marks, through facts and verdict", runIntegrity},
		"small":          {"watermark on small pictures: exact recovery per size after re-encodes and resizes", runSmall},
		"index":          {"near-duplicate index at scale: recall, latency under concurrency, memory per record, restart from Badger or PostgreSQL", runIndex},
		"claims":         {"look-before-mark: recall of mirrored, turned, cropped and rotated copies and false matches of unrelated photos", runClaims},
		"chaos":          {"a whole installation on separate hosts (network namespaces) under sign+verify load, with database failover, origin kills, a partition and a full crash; -up just runs it", runChaos},
	}
}

func main() {
	cmds := commands()
	if len(os.Args) < 2 || cmds[os.Args[1]].run == nil {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench <command> [flags]\n\ncommands:")
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, cmds[n].summary)
		}
		os.Exit(2)
	}
	if err := cmds[os.Args[1]].run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "bench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
