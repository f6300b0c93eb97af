// Command bench is Provenant's benchmark harness: robustness tables for the
// watermark and the perceptual hash, and load generators against a running
// origin or edge. Results are written up in bench/README.md.
//
// Usage:
//
//	go run ./bench <command> [flags]
//
// Each command lives in its own file and prints its own -h. A command
// declares its flags on the flag set the harness gives it and returns what
// runs once they are parsed, so every command opens the same way: flags
// parsed by the harness, a bad flag an error, -h a success.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// command is one subcommand of the harness: either run, which parses its
// own arguments, or flags, which declares the command's flags on the flag
// set the harness parses and returns what runs once they are parsed.
type command struct {
	summary string
	run     func(args []string) error
	flags   func(fs *flag.FlagSet) func() error
}

// start runs the command called name with its arguments. A command with
// flags gets the opening every such command shares: a flag set named after
// it, whose errors are returned rather than exiting; -h prints the flags
// and succeeds.
func (c command) start(name string, args []string) error {
	if c.flags == nil {
		return c.run(args)
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	run := c.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	return run()
}

func commands() map[string]command {
	return map[string]command{
		"decode":         {"reduced-resolution verify decode vs full decode: watermark recovery and pHash distance per attack", nil, decodeStudyCommand},
		"phash":          {"perceptual-hash distance distributions: same image after JPEG/resize vs unrelated pairs", nil, phashCommand},
		"robustness":     {"watermark robustness table: every image × every attack", runRobustness, nil},
		"wm":             {"file-level watermark tool: wm embed | wm extract", runWM, nil},
		"verify":         {"load generator: POST /api/v1/verify against a running origin, next to the decode-only ceiling", nil, verifyCommand},
		"sign":           {"load generator: POST /api/v1/sign against a running origin", nil, signCommand},
		"badge":          {"GET load on one path (a badge) at an edge and at its origin, alternating rounds: requests/s and the ratio", nil, badgeCommand},
		"integrity-cost": {"cost of the local-signature comparison (luminance vs colour) against a 12 MP JPEG decode", runIntegrityCost, nil},
		"integrity":      {"verdict integrity: genuine copies vs local forgeries and transplanted marks, through facts and verdict", runIntegrity, nil},
		"small":          {"watermark on small pictures: exact recovery per size after re-encodes and resizes", runSmall, nil},
		"index":          {"near-duplicate index at scale: recall, latency under concurrency, memory per record, restart from Badger or PostgreSQL", nil, indexCommand},
		"claims":         {"look-before-mark: recall of mirrored, turned, cropped and rotated copies and false matches of unrelated photos", nil, claimsCommand},
		"chaos":          {"a whole installation on separate hosts (network namespaces) under sign+verify load, with database failover, origin kills, a partition and a full crash; -up just runs it", nil, chaosCommand},
	}
}

func main() {
	cmds := commands()
	if len(os.Args) < 2 || cmds[os.Args[1]].run == nil && cmds[os.Args[1]].flags == nil {
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
	if err := cmds[os.Args[1]].start(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "bench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// commandLine is the go run line that repeats a parsed command: its name
// and the flags set on it (in name order), for a table's heading.
func commandLine(fs *flag.FlagSet) string {
	line := "go run ./bench " + fs.Name()
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if v == "" || strings.ContainsAny(v, " \t'\"") {
			v = strconv.Quote(v)
		}
		line += " -" + f.Name + " " + v
	})
	return line
}
