package apierr

import "testing"

// TestUse checks the naming switch's refusals; switching itself is
// process-wide, so it is tested in a process of its own
// (server/compat_test.go, cases/compat_postgrest.case).
func TestUse(t *testing.T) {
	if err := Use("pgrst"); err == nil || err.Error() != `compat-names: unknown naming "pgrst" (one of postgrest, svc)` {
		t.Errorf("Use(pgrst) = %v", err)
	}
	if err := Use("svc"); err != nil || Names != SVCNaming {
		t.Errorf("Use(svc) = %v, Names = %+v", err, Names)
	}
	for mode, n := range Namings {
		if len(n.RaiseState) > 5 || n.CodePrefix == "" || n.Vendor == "" || n.Channel == "" || n.SettingPrefix == "" {
			t.Errorf("naming %s is incomplete or has a RaiseState longer than a SQLSTATE: %+v", mode, n)
		}
	}
}
