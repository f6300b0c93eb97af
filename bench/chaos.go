package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/provenant/provenant/origin/origintest/cluster"
)

// chaosCommand starts a whole installation on separate hosts (network
// namespaces: geth, PostgreSQL under pg_auto_failover, SeaweedFS holding
// every origin's signed files, Redis holding the rate limits, N origins,
// HAProxy, an edge) and either runs the chaos sequence under load and
// prints docs/operations.md's table (the long variant of the CI test
// TestChaos), or, with -up, leaves it running for an operator until
// interrupted. Needs root.
func chaosCommand(fs *flag.FlagSet) func() error {
	origins := fs.Int("origins", 3, "origins behind the load balancer")
	hold := fs.Duration("hold", 30*time.Second, "how long the object store is stopped, and then the anchoring leader cut from the database")
	settle := fs.Duration("settle", 10*time.Second, "steady load before the first fault and after each repair")
	signers := fs.Int("signers", 3, "concurrent signing clients")
	verifiers := fs.Int("verifiers", 1, "concurrent verifying clients")
	up := fs.Bool("up", false, "start the installation, print its addresses and keep it running until interrupted; no faults")
	dir := fs.String("dir", "", "directory for binaries, hosts' data and logs (default: a new temporary directory, removed at the end unless -keep)")
	keep := fs.Bool("keep", false, "keep the directory at the end")
	return func() error {
		if err := cluster.Requirements(); err != nil {
			return fmt.Errorf("%w\n(install: bench/chaos-cluster.sh install; run as root)", err)
		}
		root, err := cluster.ModuleRoot()
		if err != nil {
			return err
		}
		if *dir == "" {
			d, err := os.MkdirTemp("", "pvchaos")
			if err != nil {
				return err
			}
			*dir = d
			if !*keep {
				defer os.RemoveAll(d)
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		log := slog.New(slog.NewTextHandler(os.Stderr, nil))
		inst, err := cluster.Install(ctx, cluster.InstallConfig{Dir: *dir, Root: root, Origins: *origins, Log: log})
		if inst != nil {
			defer inst.Close()
		}
		if err != nil {
			return err
		}
		if *up {
			var b strings.Builder
			fmt.Fprintf(&b, "load balancer  %s\nedge           %s\n", inst.LB.URL, inst.Edge.URL)
			for _, o := range inst.Origins {
				fmt.Fprintf(&b, "%-14s %s\n", o.Host.Name, o.URL)
			}
			fmt.Fprintf(&b, "database       %s\nobject store   %s (bucket %s)\nredis          %s\nchain          %s\nlogs           %s/hosts/<host>/\n",
				inst.PG.URL(), inst.S3.Endpoint, cluster.S3Bucket, inst.Redis.URL, inst.Chain.URL, *dir)
			fmt.Print(b.String())
			fmt.Println("running; interrupt (Ctrl-C) to stop and remove the network")
			<-ctx.Done()
			return nil
		}
		rep, err := cluster.Run(ctx, inst, cluster.ChaosConfig{Faults: cluster.DefaultFaults(*hold), Settle: *settle,
			Signers: *signers, Verifiers: *verifiers, Log: log})
		if err != nil {
			return err
		}
		fmt.Print(rep.Table())
		for _, p := range rep.Problems {
			fmt.Println("problem:", p)
		}
		if !rep.OK() {
			return fmt.Errorf("data lost, duplicated, unanchored or undelivered")
		}
		return nil
	}
}
