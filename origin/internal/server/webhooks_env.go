package server

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/webhooks"
)

// WebhooksConfigFromEnv reads the webhook settings from the environment
// (getenv is os.Getenv in main); unset variables keep the defaults:
//
//	PROVENANT_WEBHOOK_ALLOW_CIDRS   comma-separated CIDRs exempt from the SSRF refusal (default none)
//	PROVENANT_WEBHOOK_ALLOW_HTTP    true to accept http:// URLs to public hosts (default false)
//	PROVENANT_WEBHOOK_PORTS         comma-separated extra ports besides 80, 443
//	PROVENANT_WEBHOOK_SCHEDULE      comma-separated retry delays (default 1m,5m)
//	PROVENANT_WEBHOOK_TIMEOUT       per-attempt timeout (default 30s)
//	PROVENANT_WEBHOOK_WORKERS       concurrent attempts (default 8)
//	PROVENANT_WEBHOOK_PER_ENDPOINT  concurrent attempts per webhook (default 2)
//
// The returned Config always has its Guard (the SSRF policy) set.
func WebhooksConfigFromEnv(getenv func(string) string) (webhooks.Config, error) {
	var c webhooks.Config
	var g webhooks.GuardConfig
	list := func(v string) []string {
		var out []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	for _, f := range list(getenv("PROVENANT_WEBHOOK_ALLOW_CIDRS")) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return c, fmt.Errorf("PROVENANT_WEBHOOK_ALLOW_CIDRS: %w", err)
		}
		g.Allow = append(g.Allow, p)
	}
	if v := getenv("PROVENANT_WEBHOOK_ALLOW_HTTP"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("PROVENANT_WEBHOOK_ALLOW_HTTP: %w", err)
		}
		g.AllowHTTP = b
	}
	for _, f := range list(getenv("PROVENANT_WEBHOOK_PORTS")) {
		n, err := strconv.ParseUint(f, 10, 16)
		if err != nil || n == 0 {
			return c, fmt.Errorf("PROVENANT_WEBHOOK_PORTS: bad port %q", f)
		}
		g.Ports = append(g.Ports, uint16(n))
	}
	if v := getenv("PROVENANT_WEBHOOK_SCHEDULE"); v != "" {
		c.Schedule = []time.Duration{}
		for _, f := range list(v) {
			d, err := time.ParseDuration(f)
			if err != nil || d < 0 {
				return c, fmt.Errorf("PROVENANT_WEBHOOK_SCHEDULE: bad delay %q", f)
			}
			c.Schedule = append(c.Schedule, d)
		}
	}
	if v := getenv("PROVENANT_WEBHOOK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("PROVENANT_WEBHOOK_TIMEOUT: bad duration %q", v)
		}
		c.Timeout = d
	}
	for name, dst := range map[string]*int{"PROVENANT_WEBHOOK_WORKERS": &c.Workers, "PROVENANT_WEBHOOK_PER_ENDPOINT": &c.PerEndpoint} {
		if v := getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("%s: must be a positive integer", name)
			}
			*dst = n
		}
	}
	c.Guard = webhooks.NewGuard(g)
	return c, nil
}
