package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// flags is a flag set in which every flag has an environment twin: the
// variable PROVENANT_<NAME> (upper case, '-' as '_') supplies the value
// when the flag is not given on the command line (subcommands use
// PROVENANT_<COMMAND>_<NAME>). A malformed variable is
// an error, not a silent fallback to the default.
type flags struct {
	fs *flag.FlagSet
	// prefix starts every twin's name: "PROVENANT_" for the server,
	// "PROVENANT_BACKUP_" and "PROVENANT_RESTORE_" for the subcommands.
	prefix string
	getenv func(string) (string, bool)
	// defaults holds each flag's built-in default as shown by --help
	// (the value used when neither the flag nor its variable is set).
	defaults map[string]string
	// trailer is printed after the flags by --help.
	trailer string
	errs    []error
}

func newFlags(name, prefix, synopsis string, getenv func(string) (string, bool), out io.Writer) *flags {
	f := &flags{fs: flag.NewFlagSet(name, flag.ContinueOnError), prefix: prefix, getenv: getenv, defaults: map[string]string{}}
	f.fs.SetOutput(out)
	f.fs.Usage = func() {
		out := f.fs.Output()
		fmt.Fprintf(out, "Usage: %s\n\nFlags (a flag wins over its environment variable):\n", synopsis)
		f.fs.VisitAll(func(fl *flag.Flag) {
			fmt.Fprintf(out, "  --%s (env %s; default %q)\n    \t%s\n", fl.Name, f.envName(fl.Name), f.defaults[fl.Name], fl.Usage)
		})
		fmt.Fprint(out, f.trailer)
	}
	return f
}

// envName is the environment twin of flag name.
func (f *flags) envName(name string) string {
	return f.prefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// env returns the twin's value when the variable is set (even to "").
func (f *flags) env(name string) (string, bool) { return f.getenv(f.envName(name)) }

func (f *flags) str(dst *string, name, def, usage string) {
	f.defaults[name] = def
	if v, ok := f.env(name); ok {
		def = v
	}
	f.fs.StringVar(dst, name, def, usage)
}

func (f *flags) dur(dst *time.Duration, name string, def time.Duration, usage string) {
	f.defaults[name] = def.String()
	f.fs.DurationVar(dst, name, envValue(f, name, def, time.ParseDuration), usage)
}

func (f *flags) uint(dst *uint64, name string, def uint64, usage string) {
	f.defaults[name] = strconv.FormatUint(def, 10)
	f.fs.Uint64Var(dst, name, envValue(f, name, def, func(v string) (uint64, error) { return strconv.ParseUint(v, 10, 31) }), usage)
}

func (f *flags) boolean(dst *bool, name string, def bool, usage string) {
	f.defaults[name] = strconv.FormatBool(def)
	f.fs.BoolVar(dst, name, envValue(f, name, def, strconv.ParseBool), usage)
}

// envValue is name's environment variable read by parse when it is set
// and not empty, else def. A value parse refuses is recorded in f.errs,
// which parse returns, so the flag's value then does not matter.
func envValue[T any](f *flags, name string, def T, parse func(string) (T, error)) T {
	v, ok := f.env(name)
	if !ok || v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		f.errs = append(f.errs, fmt.Errorf("%s: %w", f.envName(name), err))
	}
	return x
}

// parse parses args; it returns flag.ErrHelp for -h/--help (after printing
// the usage) and joins the environment errors.
func (f *flags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		return err
	}
	if len(f.errs) > 0 {
		return f.errs[0]
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", f.fs.Arg(0))
	}
	return nil
}

func lookupEnv(name string) (string, bool) { return os.LookupEnv(name) }
