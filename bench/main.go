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
// runs once they are parsed; only wm, whose subcommands each have their own
// flags, parses its arguments itself. Every command opens the same way: a
// bad flag is an error, -h a success.
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

// command is one subcommand of the harness: either flags, which declares
// the command's flags on the flag set the harness parses and returns what
// runs once they are parsed, or run, which parses its own arguments (wm,
// whose subcommands each have their own flags).
type command struct {
	summary string
	run     func(args []string) error
	flags   func(fs *flag.FlagSet) func() error
}

// start runs the command called name with its arguments. A command with
// flags gets the opening every such command shares: a flag set named after
// it, whose errors are returned rather than exiting; -h prints the flags
// and succeeds. A command with run parses its own arguments, and its
// flag.ErrHelp is a success too.
func (c command) start(name string, args []string) error {
	if c.flags == nil {
		if err := c.run(args); !errors.Is(err, flag.ErrHelp) {
			return err
		}
		return nil
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
		"decode":         {summary: "reduced-resolution verify decode vs full decode: watermark recovery and pHash distance per attack", flags: decodeStudyCommand},
		"phash":          {summary: "perceptual-hash distance distributions: same image after JPEG/resize vs unrelated pairs", flags: phashCommand},
		"robustness":     {summary: "watermark robustness table: every image × every attack", flags: robustnessCommand},
		"wm":             {summary: "file-level watermark tool: wm embed | wm extract", run: runWM},
		"verify":         {summary: "load generator: POST /api/v1/verify against a running origin, next to the decode-only ceiling", flags: verifyCommand},
		"sign":           {summary: "load generator: POST /api/v1/sign against a running origin", flags: signCommand},
		"badge":          {summary: "GET load on one path (a badge) at an edge and at its origin, alternating rounds: requests/s and the ratio", flags: badgeCommand},
		"integrity-cost": {summary: "cost of the local-signature comparison (luminance vs colour) against a 12 MP JPEG decode", flags: integrityCostCommand},
		"integrity":      {summary: "verdict integrity: genuine copies vs local forgeries and transplanted marks, through facts and verdict", flags: integrityCommand},
		"small":          {summary: "watermark on small pictures: exact recovery per size after re-encodes and resizes", flags: smallCommand},
		"index":          {summary: "near-duplicate index at scale: recall, latency under concurrency, memory per record, restart from Badger or PostgreSQL", flags: indexCommand},
		"claims":         {summary: "look-before-mark: recall of mirrored, turned, cropped and rotated copies and false matches of unrelated photos", flags: claimsCommand},
		"chaos":          {summary: "a whole installation on separate hosts (network namespaces) under sign+verify load, with database failover, origin kills, a partition and a full crash; -up just runs it", flags: chaosCommand},
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
