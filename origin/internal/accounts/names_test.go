package accounts

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
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

// TestImpersonatingNamesRefusedOrShared: after "Reuters" registered, each
// name an impersonator tries is either refused at registration (it
// imitates the verification label) or accepted and shown as a shared name
// (it folds like "Reuters"); distinct organisations stay unshared.
func TestImpersonatingNamesRefusedOrShared(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := validInput()
	in.Email, in.OrgName = "victim@example.com", "Reuters"
	e.register(t, in)
	tests := []struct {
		org     string
		refused bool
		shared  bool
	}{
		{"Reuters (key 5832517e7b62c4e0)", true, false},
		{"Reuters (verified domain reuters.com)", true, false},
		{"Reuters - Official", true, false},
		{"unverified organisation: Reuters", true, false},
		{"Rëuters", false, true},
		{"Réuters", false, true},
		{"Reuters™", false, true},
		{"REUTERS", false, true},
		{"Ｒｅｕｔｅｒｓ", false, true},
		{"Reuter", false, false},
		{"Official Charts Company", false, false},
		{"Domain Media", false, false},
	}
	for i, tc := range tests {
		t.Run(tc.org, func(t *testing.T) {
			in := validInput()
			in.Email, in.OrgName = fmt.Sprintf("claimant%d@example.com", i), tc.org
			_, err := e.svc.Register(ctx, in)
			var fe validate.Errors
			if tc.refused {
				if !errors.As(err, &fe) || len(fe) != 1 || fe[0].Field != "org_name" || !fe[0].Unprocessable {
					t.Errorf("Register(%q) = %v, want org_name refused (422)", tc.org, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Register(%q) = %v, want accepted", tc.org, err)
			}
			n, err := e.svc.OrgNameHolders(ctx, tc.org)
			if err != nil || (n > 1) != tc.shared {
				t.Errorf("OrgNameHolders(%q) = %d, %v; shared = %v, want %v", tc.org, n, err, n > 1, tc.shared)
			}
		})
	}
}
