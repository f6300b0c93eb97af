package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/webhooks"
)

func TestWebhooksConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr bool
		// URLs the resulting Guard must accept and refuse (IP literals: no DNS).
		accept, refuse []string
		check          func(t *testing.T, c webhooks.Config)
	}{
		{name: "defaults", refuse: []string{"https://127.0.0.1/hook", "http://93.184.215.14/hook", "https://93.184.215.14:8443/hook"},
			accept: []string{"https://93.184.215.14/hook"},
			check: func(t *testing.T, c webhooks.Config) {
				if c.Schedule != nil || c.Timeout != 0 || c.Workers != 0 || c.PerEndpoint != 0 {
					t.Errorf("config = %+v, want zero values (the service's defaults)", c)
				}
			}},
		{name: "allow-list, http, ports",
			env: map[string]string{"PROVENANT_WEBHOOK_ALLOW_CIDRS": "127.0.0.1/32, 10.1.0.0/16", "PROVENANT_WEBHOOK_ALLOW_HTTP": "true",
				"PROVENANT_WEBHOOK_PORTS": "8443"},
			accept: []string{"http://127.0.0.1:9000/hook", "http://10.1.2.3/hook", "http://93.184.215.14/hook", "https://93.184.215.14:8443/hook"},
			refuse: []string{"http://10.2.0.1/hook", "https://93.184.215.14:9000/hook"}},
		{name: "delivery settings",
			env: map[string]string{"PROVENANT_WEBHOOK_SCHEDULE": "10s, 1m", "PROVENANT_WEBHOOK_TIMEOUT": "5s",
				"PROVENANT_WEBHOOK_WORKERS": "3", "PROVENANT_WEBHOOK_PER_ENDPOINT": "1"},
			check: func(t *testing.T, c webhooks.Config) {
				if !slices.Equal(c.Schedule, []time.Duration{10 * time.Second, time.Minute}) || c.Timeout != 5*time.Second || c.Workers != 3 || c.PerEndpoint != 1 {
					t.Errorf("config = %+v, want schedule [10s 1m], timeout 5s, 3 workers, 1 per endpoint", c)
				}
			}},
		{name: "bad cidr", env: map[string]string{"PROVENANT_WEBHOOK_ALLOW_CIDRS": "127.0.0.1"}, wantErr: true},
		{name: "bad port", env: map[string]string{"PROVENANT_WEBHOOK_PORTS": "0"}, wantErr: true},
		{name: "bad workers", env: map[string]string{"PROVENANT_WEBHOOK_WORKERS": "-1"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := WebhooksConfigFromEnv(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if c.Guard == nil {
				t.Fatal("Guard is nil")
			}
			for _, u := range tt.accept {
				if _, err := c.Guard.CheckURL(context.Background(), u); err != nil {
					t.Errorf("CheckURL(%s) = %v, want accepted", u, err)
				}
			}
			for _, u := range tt.refuse {
				if _, err := c.Guard.CheckURL(context.Background(), u); err == nil {
					t.Errorf("CheckURL(%s) accepted, want refused", u)
				}
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}
