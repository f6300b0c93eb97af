package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// commandFlags builds each command's flag set with the given environment,
// the way run does.
func commandFlags(env map[string]string) map[string]*flags {
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var buf bytes.Buffer
	serveF, _ := serveFlags(getenv, &buf)
	backupF, _ := backupFlags(getenv, &buf)
	restoreF, _ := restoreFlags(getenv, &buf)
	return map[string]*flags{"serve": serveF, "backup": backupF, "restore": restoreF}
}

// sampleValue returns a valid non-default value for fl and its printed form.
func sampleValue(fl *flag.Flag) string {
	switch fl.Value.(flag.Getter).Get().(type) {
	case time.Duration:
		return "7s"
	case uint64:
		return "7"
	case bool:
		return "true"
	default:
		return "sample-" + fl.Name
	}
}

// TestFlagEnvParity: every flag of every command has an environment twin
// that sets it, the flag wins over the twin, --help names flag, twin and
// default, and docs/operations.md documents both.
func TestFlagEnvParity(t *testing.T) {
	docs, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for cmd, f := range commandFlags(nil) {
		var help bytes.Buffer
		f.fs.SetOutput(&help)
		f.fs.Usage()
		n := 0
		f.fs.VisitAll(func(fl *flag.Flag) {
			n++
			env := f.envName(fl.Name)
			t.Run(cmd+"/"+fl.Name, func(t *testing.T) {
				if want := fmt.Sprintf("--%s (env %s; default %q)", fl.Name, env, f.defaults[fl.Name]); !strings.Contains(help.String(), want) {
					t.Errorf("--help lacks %q", want)
				}
				for _, s := range []string{"`--" + fl.Name + "`", "`" + env + "`"} {
					if !bytes.Contains(docs, []byte(s)) {
						t.Errorf("docs/operations.md does not mention %s (command %s)", s, cmd)
					}
				}
				v := sampleValue(fl)
				got := commandFlags(map[string]string{env: v})[cmd]
				if err := got.parse(nil); err != nil {
					t.Fatalf("parse with %s=%s: %v", env, v, err)
				}
				if s := got.fs.Lookup(fl.Name).Value.String(); s != v {
					t.Errorf("with %s=%s the flag is %q, want %q", env, v, s, v)
				}
				got = commandFlags(map[string]string{env: v})[cmd]
				flagV := map[string]string{"7s": "9s", "7": "9", "true": "false"}[v]
				if flagV == "" {
					flagV = "from-flag"
				}
				if err := got.parse([]string{"--" + fl.Name + "=" + flagV}); err != nil {
					t.Fatal(err)
				}
				if s := got.fs.Lookup(fl.Name).Value.String(); s != flagV {
					t.Errorf("--%s=%s with %s=%s set gives %q, want the flag's value", fl.Name, flagV, env, v, s)
				}
			})
		})
		if n == 0 {
			t.Errorf("command %s has no flags", cmd)
		}
	}
}

func TestMalformedEnvIsAnError(t *testing.T) {
	for _, env := range []string{"PROVENANT_GC_INTERVAL", "PROVENANT_BATCH_SIZE"} {
		f := commandFlags(map[string]string{env: "not-a-number"})["serve"]
		if err := f.parse(nil); err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%s=not-a-number: parse error %v, want one naming the variable", env, err)
		}
	}
}

func TestHelpExitsCleanly(t *testing.T) {
	for cmd, f := range commandFlags(nil) {
		f.fs.SetOutput(&bytes.Buffer{})
		if err := f.parse([]string{"--help"}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s --help: %v, want flag.ErrHelp", cmd, err)
		}
	}
}

func TestCheckStore(t *testing.T) {
	for _, c := range []struct {
		kind, url string
		ok        bool
	}{
		{"badger", "", true},
		{"postgres", "postgres://db/provenant", true},
		{"postgres", "", false},
		{"badger", "postgres://db/provenant", false},
		{"sqlite", "", false},
		{"", "", false},
	} {
		if err := checkStore(c.kind, c.url); (err == nil) != c.ok {
			t.Errorf("checkStore(%q, %q) = %v, want ok %v", c.kind, c.url, err, c.ok)
		}
	}
}
