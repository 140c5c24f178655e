package apierr

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Naming holds every name a client sees that carries the product prefix, so
// a PostgREST-compatible naming mode is one switch of this value rather than
// conditionals through the code. It is a value handed down, not a setting
// of the process: a server holds the naming its configuration chose
// (naming.Of) and gives it to what writes a name, so that two servers of
// one process may each answer under their own.
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

// NamingOf is the naming of a compat-names value, SVC's for "" (a
// configuration not loaded through config, as tests build) or a value
// config would not have taken.
func NamingOf(mode string) Naming {
	if n, ok := Namings[mode]; ok {
		return n
	}
	return SVCNaming
}

// Mode is n's compat-names value, "" for a naming of none.
func (n Naming) Mode() string {
	for mode, m := range Namings {
		if m == n {
			return mode
		}
	}
	return ""
}

// code is SVC's own code of suffix, in SVCNaming's spelling: an error
// keeps that identity whatever the naming, and takes the naming's prefix
// where it is written (Error.CodeIn).
func code(suffix string) string { return SVCNaming.CodePrefix + suffix }

// otherVendorHint is the advice for an Accept header naming the vendor
// media types of a naming other than own (application/vnd.pgrst.* under
// SVC's names, application/vnd.svc.* under PostgREST's), which are
// otherwise refused like any unknown type, and that naming's compat-names
// value; "" when it names none.
func otherVendorHint(own Naming, accepted string) (string, string) {
	accepted = strings.ToLower(accepted)
	for _, mode := range slices.Sorted(maps.Keys(Namings)) {
		n := Namings[mode]
		if n == own || !strings.Contains(accepted, "application/vnd."+n.Vendor+".") {
			continue
		}
		return fmt.Sprintf("application/vnd.%s.* are the media types of compat-names = %s, and this server runs under compat-names = %s: "+
			"ask for application/vnd.%s.* instead, or set compat-names = %s", n.Vendor, mode, own.Mode(), own.Vendor, mode), mode
	}
	return "", ""
}
