package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/provenant/provenant/client"
)

// app holds what every command shares: the global flags, the config file
// and the environment.
type app struct {
	io stdio
	// Global flags.
	url, apiKey, configFlag string
	asJSON                  bool
	timeout                 time.Duration
	retries                 int
	// ran is set once a command's own code starts: an error before that
	// is a usage error (unknown command or flag) whatever cobra calls it.
	ran bool

	cfgPath string
	cfg     fileConfig
}

func run(ctx context.Context, args []string, s stdio) int {
	a := &app{io: s}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	err := root.ExecuteContext(ctx)
	if err != nil && !a.ran {
		var ue *usageError
		if !errors.As(err, &ue) {
			err = &usageError{err.Error()}
		}
	}
	if err != nil {
		reportError(s, a.asJSON, err)
		var ue *usageError
		if errors.As(err, &ue) && !a.asJSON {
			fmt.Fprintln(s.err, "Run 'provenant --help' for usage.")
		}
	}
	return exitCode(err)
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "provenant",
		Short: "Sign and verify content with a Provenant origin",
		Long: `provenant signs files and folders, verifies files (by upload, or locally:
the file never leaves this machine), and manages keys, records and webhooks.

Settings come from flags, then the environment (PROVENANT_URL,
PROVENANT_API_KEY, PROVENANT_CONFIG), then the config file written by
'provenant login'.

Exit codes: 0 ok (verify: authentic), 1 not authentic, 2 usage error,
3 error answer from the origin, 4 network error, 5 local file error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup()
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	f := root.PersistentFlags()
	f.StringVar(&a.url, "url", "", "origin base URL (env PROVENANT_URL; default "+defaultURL+")")
	f.StringVar(&a.apiKey, "api-key", "", "API key (env PROVENANT_API_KEY)")
	f.StringVar(&a.configFlag, "config", "", "config file (env PROVENANT_CONFIG; default <user config dir>/provenant/config.json)")
	f.BoolVar(&a.asJSON, "json", false, "print JSON for scripts (errors as JSON on stderr)")
	f.DurationVar(&a.timeout, "timeout", 0, "give up after this long (0: no limit)")
	f.IntVar(&a.retries, "retries", client.DefaultMaxRetries, "retries of a failed request (network error, 429, 5xx)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	root.AddCommand(a.loginCommand(), a.logoutCommand(), a.keysCommand(), a.signCommand(), a.verifyCommand(),
		a.recordsCommand(), a.webhooksCommand(), a.receiptCommand(), a.verifyReceiptCommand(), a.registerCommand())
	return root
}

// setup resolves the settings once the command line parsed.
func (a *app) setup() error {
	a.ran = true
	p, err := configPath(a.configFlag, a.io.getenv)
	if err != nil {
		return err
	}
	a.cfgPath = p
	if a.cfg, err = loadConfig(p); err != nil {
		return err
	}
	if a.url == "" {
		a.url = a.io.getenv("PROVENANT_URL")
	}
	if a.url == "" {
		a.url = a.cfg.URL
	}
	if a.url == "" {
		a.url = defaultURL
	}
	if a.apiKey == "" {
		a.apiKey = a.io.getenv("PROVENANT_API_KEY")
	}
	if a.apiKey == "" {
		a.apiKey = a.cfg.APIKey
	}
	if a.retries < 0 {
		return usagef("--retries must be 0 or more")
	}
	return nil
}

// credential says which credential a command needs.
type credential int

const (
	credNone   credential = iota // public endpoints
	credAPIKey                   // API-key-only endpoints
	credJWT                      // session-only endpoints (keys)
	credEither                   // an API key, else the session
)

// client returns a client authenticated for need.
func (a *app) client(need credential) (*client.Client, error) {
	token := ""
	session := a.cfg.Token
	if session != "" && !a.cfg.TokenExpiresAt.IsZero() && time.Now().After(a.cfg.TokenExpiresAt) {
		session = ""
	}
	switch need {
	case credAPIKey:
		if a.apiKey == "" {
			return nil, usagef("no API key: pass --api-key, set PROVENANT_API_KEY, or run 'provenant login --create-api-key NAME'")
		}
		token = a.apiKey
	case credJWT:
		if session == "" {
			return nil, usagef("no valid session (these commands need one; sessions last an hour): run 'provenant login'")
		}
		token = session
	case credEither:
		token = a.apiKey
		if token == "" {
			token = session
		}
		if token == "" {
			return nil, usagef("no credentials: pass --api-key, set PROVENANT_API_KEY, or run 'provenant login'")
		}
	}
	retries := a.retries
	if retries == 0 {
		retries = -1
	}
	c, err := client.New(client.Config{BaseURL: a.url, Token: token, MaxRetries: retries, UserAgent: "provenant-cli"})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// ctx bounds a command by --timeout.
func (a *app) ctx(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	if a.timeout > 0 {
		return context.WithTimeout(cmd.Context(), a.timeout)
	}
	return context.WithCancel(cmd.Context())
}

// printJSON writes v as indented JSON to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.io.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) printf(format string, args ...any) { fmt.Fprintf(a.io.out, format, args...) }

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %d argument(s) (%s), got %d", n, strings.Join(names, " "), len(args))
		}
		return nil
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
