package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/provenant/provenant/client"
)

func (a *app) loginCommand() *cobra.Command {
	var email, keyName string
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in and store the session (and optionally a new API key) in the config file",
		Long: `login exchanges an email and password for a session (valid one hour; the
keys commands need it) and stores it, with the origin URL and the
organisation name, in the config file (mode 0600).

The password is read from PROVENANT_PASSWORD, from the first line of stdin
with --password-stdin, or asked for on the terminal.

--create-api-key NAME also creates an API key with every scope and stores
it: sign, verify, records and webhooks then work without logging in again.
With --api-key KEY and no --email, login only stores that key.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := a.ctx(cmd)
			defer cancel()
			cfg := a.cfg
			cfg.URL = a.url
			if email == "" && a.apiKey != "" && cmd.Flags().Changed("api-key") {
				cfg.APIKey = a.apiKey
				if err := saveConfig(a.cfgPath, cfg); err != nil {
					return err
				}
				a.printf("API key stored in %s\n", a.cfgPath)
				return nil
			}
			if email == "" {
				if cfg.Email == "" {
					return usagef("--email is required")
				}
				email = cfg.Email
			}
			password, err := a.password(passwordStdin)
			if err != nil {
				return err
			}
			c, err := a.client(credNone)
			if err != nil {
				return err
			}
			s, err := c.Login(ctx, email, password)
			if err != nil {
				return err
			}
			cfg.Token, cfg.TokenExpiresAt = s.AccessToken, s.ExpiresAt
			cfg.Email, cfg.OrgName = s.User.Email, s.User.OrgName
			var created *client.NewAPIKey
			if keyName != "" {
				if created, err = c.WithToken(s.AccessToken).CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: keyName}); err != nil {
					return err
				}
				cfg.APIKey = created.Key
			}
			if err := saveConfig(a.cfgPath, cfg); err != nil {
				return err
			}
			if a.asJSON {
				out := map[string]any{"user": s.User, "expires_at": s.ExpiresAt, "config": a.cfgPath}
				if created != nil {
					out["api_key"] = created.APIKey
				}
				return a.printJSON(out)
			}
			a.printf("Logged in to %s as %s (%s); session valid until %s.\n", a.url, s.User.Email, s.User.OrgName, s.ExpiresAt.Local().Format("2006-01-02 15:04 MST"))
			if created != nil {
				a.printf("Created API key %q (…%s) and stored it.\n", created.Name, created.Last4)
			}
			a.printf("Saved to %s\n", a.cfgPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "account email (default: the last one used)")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of stdin")
	cmd.Flags().StringVar(&keyName, "create-api-key", "", "also create an API key with this name and store it")
	return cmd
}

func (a *app) password(fromStdin bool) (string, error) {
	if fromStdin {
		line, err := bufio.NewReader(a.io.in).ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" && err != nil {
			return "", usagef("--password-stdin: no password on stdin")
		}
		return line, nil
	}
	if p := a.io.getenv("PROVENANT_PASSWORD"); p != "" {
		return p, nil
	}
	f, ok := a.io.in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", usagef("no password: use --password-stdin or PROVENANT_PASSWORD")
	}
	fmt.Fprint(a.io.err, "Password: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(a.io.err)
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	return string(b), nil
}

func (a *app) logoutCommand() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Forget the stored session (and with --all the stored API key)",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			cfg := a.cfg
			cfg.Token, cfg.TokenExpiresAt = "", time.Time{}
			if all {
				cfg.APIKey = ""
			}
			if err := saveConfig(a.cfgPath, cfg); err != nil {
				return err
			}
			if !a.asJSON {
				a.printf("Logged out.\n")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also forget the stored API key (it stays valid: revoke it with 'provenant keys api revoke')")
	return cmd
}
