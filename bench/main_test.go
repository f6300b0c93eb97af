package main

import (
	"errors"
	"flag"
	"io"
	"testing"
)

// A command with flags is run with them parsed; -h succeeds without
// running it, for every command of the table too; an unknown flag is an
// error, not an exit.
func TestCommandStart(t *testing.T) {
	var got int
	ran := false
	c := command{flags: func(fs *flag.FlagSet) func() error {
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 1, "a number")
		return func() error {
			ran, got = true, *n
			return nil
		}
	}}
	if err := c.start("t", []string{"-n", "7"}); err != nil || !ran || got != 7 {
		t.Fatalf("start -n 7: err %v, ran %v, n %d", err, ran, got)
	}
	ran = false
	if err := c.start("t", []string{"-h"}); err != nil || ran {
		t.Fatalf("start -h: err %v, ran %v", err, ran)
	}
	if err := c.start("t", []string{"-nope"}); err == nil || ran {
		t.Fatalf("start -nope: err %v, ran %v", err, ran)
	}
	want := errors.New("run failed")
	failing := command{run: func([]string) error { return want }}
	if err := failing.start("f", nil); err != want {
		t.Fatalf("a command without flags: err %v, want %v", err, want)
	}
	help := command{run: func([]string) error { return flag.ErrHelp }}
	if err := help.start("h", []string{"-h"}); err != nil {
		t.Fatalf("a command without flags asked for help: err %v", err)
	}
	// Every command in the table: -h succeeds, whether the harness parses
	// its flags or the command does.
	for name, c := range commands() {
		if err := c.start(name, []string{"-h"}); err != nil {
			t.Errorf("bench %s -h: %v", name, err)
		}
	}
}

// The heading line repeats the command with the flags that were set.
func TestCommandLine(t *testing.T) {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	fs.Int("limit", 0, "")
	fs.String("min-short", "512", "")
	fs.String("images", "bench/images", "")
	if err := fs.Parse([]string{"-min-short", "512,768", "-limit", "32", "-images", "my photos"}); err != nil {
		t.Fatal(err)
	}
	const want = `go run ./bench decode -images "my photos" -limit 32 -min-short 512,768`
	if got := commandLine(fs); got != want {
		t.Fatalf("commandLine = %q, want %q", got, want)
	}
}
