package accounts

import (
	"context"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
)

func TestOrgNameHolders(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i, org := range []string{"Reuters", "REUTERS", "Example News"} {
		in := validInput()
		in.Email = string(rune('a'+i)) + "@example.com"
		in.OrgName = org
		e.register(t, in)
	}
	tests := []struct {
		name string
		want int
	}{
		{"Reuters", 2},
		{"ｒｅｕｔｅｒｓ", 2},
		{"Example News", 1},
		{"Nobody", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.svc.OrgNameHolders(ctx, tc.name)
			if err != nil || got != tc.want {
				t.Errorf("OrgNameHolders(%q) = %d, %v; want %d", tc.name, got, err, tc.want)
			}
		})
	}
}

// An account stored before the name rules and the name index (here with a
// line break in its name) keeps loading, and the start-up backfill
// indexes it once.
func TestLegacyNameLoadsAndIsIndexed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	legacy := record{ID: "legacy-1", Email: "old@example.com", OrgName: "Reuters\nVerified", OrgType: "news_org", PasswordHash: "x", CreatedAt: t0}
	if err := e.st.Update(ctx, func(tx store.Txn) error { return store.PutJSON(tx, userKey(legacy.ID), &legacy) }); err != nil {
		t.Fatal(err)
	}
	u, err := e.svc.Get(ctx, legacy.ID)
	if err != nil || u.OrgName != legacy.OrgName {
		t.Fatalf("Get(legacy) = %+v, %v; want the stored name unchanged", u, err)
	}
	if n, _ := e.svc.OrgNameHolders(ctx, legacy.OrgName); n != 0 {
		t.Fatalf("holders before backfill = %d, want 0", n)
	}
	for i, want := range []int{1, 0} {
		added, err := e.svc.IndexOrgNames(ctx)
		if err != nil || added != want {
			t.Errorf("IndexOrgNames run %d = %d, %v; want %d", i+1, added, err, want)
		}
	}
	if n, _ := e.svc.OrgNameHolders(ctx, legacy.OrgName); n != 1 {
		t.Errorf("holders after backfill = %d, want 1", n)
	}
}
