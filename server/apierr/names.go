package apierr

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Naming holds every name a client sees that carries the product prefix, so
// a PostgREST-compatible naming mode is one switch of this value rather than
// conditionals through the code.
type Naming struct {
	// CodePrefix starts every SVC error code ("SVC" -> "SVC100").
	CodePrefix string
	// Vendor is the vendor part of media types ("svc" -> application/vnd.svc.object+json).
	Vendor string
	// Channel is the default NOTIFY channel.
	Channel string
	// RaiseState starts the SQLSTATE of a custom error raised by a function
	// (the body and status in its message and detail). SQLSTATEs are five
	// characters, so SVC's is "SVC" plus any two (RAISE SQLSTATE 'SVC00');
	// PostgREST's is all five, 'PGRST'.
	RaiseState string
	// SettingPrefix starts the in-database configuration settings of the
	// authenticator role ("svc." -> ALTER ROLE ... SET svc.db_schemas).
	SettingPrefix string
	// Product names the server in the Proxy-Status header of error
	// answers ("SVC" -> Proxy-Status: SVC; error=SVC205).
	Product string
}

// SVCNaming is the default naming, exactly as SPEC.md writes it.
var SVCNaming = Naming{CodePrefix: "SVC", Vendor: "svc", Channel: "svc", RaiseState: "SVC", SettingPrefix: "svc.", Product: "SVC"}

// PostgRESTNaming is PostgREST's own naming (compat-names = postgrest): the
// names its clients, databases and operators already use.
var PostgRESTNaming = Naming{CodePrefix: "PGRST", Vendor: "pgrst", Channel: "pgrst", RaiseState: "PGRST", SettingPrefix: "pgrst.",
	Product: "PostgREST"}

// Namings are the namings by the values of the compat-names key.
var Namings = map[string]Naming{"svc": SVCNaming, "postgrest": PostgRESTNaming}

// Names is the naming in force. It is process-wide: svc-serve sets it once
// with Use, from compat-names, before it reads in-database settings or
// serves, and it never changes afterwards, so request goroutines read it
// without locking. A process serves one API under one naming: its LISTEN
// channel and its clients' media types and error codes do not switch at
// run time.
var Names = SVCNaming

// Use puts the naming of a compat-names value in force. Call it before
// serving, never while requests run.
func Use(mode string) error {
	n, ok := Namings[mode]
	if !ok {
		return fmt.Errorf("compat-names: unknown naming %q (one of %s)", mode,
			strings.Join(slices.Sorted(maps.Keys(Namings)), ", "))
	}
	if Names != n {
		// Written only when it changes, so that starting a second server
		// in one process (tests) under the same naming races with nothing.
		Names = n
	}
	return nil
}

func code(suffix string) string { return Names.CodePrefix + suffix }

// otherVendorHint is the advice for an Accept header naming the vendor
// media types of a naming not in force (application/vnd.pgrst.* under
// SVC's names, application/vnd.svc.* under PostgREST's), which are
// otherwise refused like any unknown type, and that naming's compat-names
// value; "" when it names none.
func otherVendorHint(accepted string) (string, string) {
	accepted = strings.ToLower(accepted)
	current := modeOf(Names)
	for _, mode := range slices.Sorted(maps.Keys(Namings)) {
		n := Namings[mode]
		if n == Names || !strings.Contains(accepted, "application/vnd."+n.Vendor+".") {
			continue
		}
		return fmt.Sprintf("application/vnd.%s.* are the media types of compat-names = %s, and this server runs under compat-names = %s: "+
			"ask for application/vnd.%s.* instead, or set compat-names = %s", n.Vendor, mode, current, Names.Vendor, mode), mode
	}
	return "", ""
}

// modeOf is the compat-names value of naming n.
func modeOf(n Naming) string {
	for mode, m := range Namings {
		if m == n {
			return mode
		}
	}
	return ""
}
