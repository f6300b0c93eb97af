package content

import (
	"testing"
	"time"
)

func TestDayKeyIsUTCDay(t *testing.T) {
	loc := time.FixedZone("UTC+10", 10*3600)
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 4, 23, 59, 59, 0, time.UTC), "rec/ds/acct/2026-03-04"},
		{time.Date(2026, 3, 5, 5, 0, 0, 0, loc), "rec/ds/acct/2026-03-04"},
		{time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), "rec/ds/acct/2026-03-05"},
	}
	for _, tc := range tests {
		if got := string(dayKey(pfxDaySigned, "acct", tc.at)); got != tc.want {
			t.Errorf("dayKey(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
