package apierr

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
	// characters, so SVC's is "SVC" plus any two (RAISE SQLSTATE 'SVC00').
	RaiseState string
	// SettingPrefix starts the in-database configuration settings of the
	// authenticator role ("svc." -> ALTER ROLE ... SET svc.db_schemas).
	SettingPrefix string
}

// SVCNaming is the default naming, exactly as SPEC.md writes it.
var SVCNaming = Naming{CodePrefix: "SVC", Vendor: "svc", Channel: "svc", RaiseState: "SVC", SettingPrefix: "svc."}

// Names is the naming in force. It is set once at start-up, before serving.
var Names = SVCNaming

func code(suffix string) string { return Names.CodePrefix + suffix }
