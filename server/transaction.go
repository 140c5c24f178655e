package server

import (
	"net/http"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // Prefer: timezone is checked against IANA names even where the OS lacks them

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbconfig"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// resetRole is the value of the role setting that resets it to the
// session's user, as PostgreSQL compares it: case and all.
const resetRole = "none"

// txContext builds the request's transaction context for identity id:
// the role (the token's role claim, else db-anon-role), the role's own
// settings from the snapshot, and what PostgREST hands to SQL about the
// request. request.path is the path as the client sent it, escapes
// and all, as PostgREST's (its raw path): the decoded one would name
// /my%20table and /my table alike.
func (s *Server) txContext(r *http.Request, snap *snapshot.Snapshot, id auth.Identity) (dbexec.Tx, error) {
	tx := dbexec.Tx{Method: r.Method, Path: r.URL.EscapedPath(), Role: id.Role,
		// As in PostgREST, only a role named by the token counts as
		// authenticated: a privilege error is then 403, not 401.
		Authenticated: id.Role != ""}
	if tx.Role == resetRole {
		// set_config('role', 'none') is SET ROLE NONE: the request would
		// run with the authenticator's own rights. No role can be named
		// so (PostgreSQL reserves the name), so it is answered as any
		// role that does not exist.
		return dbexec.Tx{}, apierr.UndefinedRole(tx.Role)
	}
	if tx.Role == "" {
		if s.cfg.DBAnonRole == "" {
			return dbexec.Tx{}, apierr.AnonymousDisabled()
		}
		tx.Role = s.cfg.DBAnonRole
	}
	tx.Claims = id.ClaimsAs(tx.Role)
	if role := snap.Role(tx.Role); role != nil {
		tx.Settings, tx.Isolation = roleSettings(role.Settings)
	}
	tx.Settings = append(tx.Settings, s.appSettings...)
	tx.Headers = request.HeadersJSON(r.Header, r.Host)
	tx.Cookies = request.CookiesJSON(r.Header["Cookie"])
	tx.PreRequest = s.preRequest
	return tx, nil
}

// txShape is what a request's transaction takes from its plan: whether
// it only reads, the preferences, and the schema of the relation or
// function. A kept shape holds one, so it holds none of the request's
// values.
type txShape struct {
	// readOnly and reads are dbexec.Tx's ReadOnly and Reads.
	readOnly, reads bool
	prefer          request.Preferences
	schema          string // sent as Content-Profile
	searchPath      string
}

// bytes counts the texts sh holds; the schema's is the snapshot's.
func (sh *txShape) bytes() int { return len(sh.searchPath) + shapes.Texts(&sh.prefer) }

// detach copies the texts sh took from the request's headers, so that a
// kept shape does not keep the headers alive.
func (sh *txShape) detach() { shapes.Detach(&sh.prefer) }

func (s *Server) newTxShape(pr request.Preferences, schema string) txShape {
	searchPath, ok := s.searchPaths[schema]
	if !ok {
		searchPath = dbexec.SearchPath(schema, s.cfg.DBExtraSearchPath)
	}
	return txShape{prefer: pr, schema: schema, searchPath: searchPath}
}

// searchPathsOf makes the search path of each schema cfg serves.
func searchPathsOf(cfg *config.Config) map[string]string {
	paths := make(map[string]string, len(cfg.DBSchemas))
	for _, schema := range cfg.DBSchemas {
		paths[schema] = dbexec.SearchPath(schema, cfg.DBExtraSearchPath)
	}
	return paths
}

// readyTx readies x's transaction for a request of shape sh: whether it
// only reads, its preferences (into x.applied) and search path, and
// Content-Profile when several schemas are served.
func (s *Server) readyTx(x *exchange, sh *txShape) error {
	x.tx.ReadOnly, x.tx.Reads = sh.readOnly, sh.reads
	applied, err := s.preferences(sh.prefer, &x.tx)
	if err != nil {
		return err
	}
	x.applied = applied
	x.tx.SearchPath = sh.searchPath
	if len(s.cfg.DBSchemas) > 1 {
		x.setHeader("Content-Profile", sh.schema)
	}
	return nil
}

// preferences applies the Prefer values every request kind shares: the
// timezone and the transaction's end. It reports which of the two it
// applied.
//
// A timezone is applied when it is an IANA name (Go and PostgreSQL read
// the same database) or a numeric UTC offset such as +05:30 or -4, which
// PostgreSQL reads itself and may still refuse (05:30:15 asks for leap
// seconds): its error answers then, as in PostgREST. Any other name is
// ignored, as SPEC.md has it, unless handling=strict: then PostgreSQL is
// asked, and refuses an unknown zone with 400 (22023).
func (s *Server) preferences(pr request.Preferences, tx *dbexec.Tx) (applied appliedPrefs, err error) {
	if tz := pr.Timezone; tz != "" && (knownZone(tz) || utcOffset.MatchString(tz) || pr.Handling == "strict") {
		tx.Timezone = tz
		applied.timezone = true
	}
	// tx is a known preference even where db-tx-end does not let it
	// apply, so strict handling accepts it, as PostgREST does.
	tx.Rollback, applied.tx = s.cfg.TxRollback(pr.Tx)
	return applied, nil
}

// knownZone reports whether tz names a zone of the IANA database.
func knownZone(tz string) bool {
	_, err := time.LoadLocation(tz)
	return err == nil && tz != "Local"
}

// utcOffset matches the numeric time zones PostgreSQL reads as offsets
// from UTC: hours, optionally minutes and seconds, optionally signed.
var utcOffset = regexp.MustCompile(`^[+-]?[0-9]{1,2}(:[0-9]{2}){0,2}$`)

// roleSettings splits a role's ALTER ROLE ... SET entries into settings
// applied with set_config and the transaction isolation level, which only
// BEGIN can choose. role and session_authorization are left to the role
// switch itself.
func roleSettings(entries []string) (settings [][2]string, isolation string) {
	for _, e := range entries {
		name, value, ok := strings.Cut(e, "=")
		switch {
		case !ok, name == "role", name == "session_authorization":
		case name == "default_transaction_isolation":
			isolation = isolationLevel(value)
		default:
			settings = append(settings, [2]string{name, value})
		}
	}
	return settings, isolation
}

// isolationLevel validates a default_transaction_isolation value, which is
// written into BEGIN and so must be one of the four levels.
func isolationLevel(v string) string {
	switch v = strings.ToLower(strings.Trim(v, `"' `)); v {
	case "serializable", "repeatable read", "read committed", "read uncommitted":
		return v
	}
	return ""
}

// preRequestCall is the statement calling db-pre-request, a function
// named "schema.name" or, resolved through the request's search_path,
// "name"; nil when none is configured.
func preRequestCall(name string) *query.Statement {
	if name == "" {
		return nil
	}
	return &query.Statement{SQL: dbconfig.CallSQL(name)}
}

// appSettingsOf renders app.settings.* configuration keys as settings.
func appSettingsOf(cfg *config.Config) [][2]string {
	out := make([][2]string, 0, len(cfg.AppSettings))
	for name, value := range cfg.AppSettings {
		out = append(out, [2]string{"app.settings." + name, value})
	}
	return out
}

// authenticate is the pipeline's authentication: the identity the bearer
// token in r verifies to, or none for a request without one. Verify on a
// nil verifier (no key configured) answers SVC300.
func (s *Server) authenticate(r *http.Request) (auth.Identity, error) {
	token, ok := auth.BearerToken(request.FieldValue(r.Header, "Authorization"))
	if !ok {
		return auth.Identity{}, nil
	}
	return s.jwt.Verify(token)
}

// transact runs steps, the main statement last, as x's transaction, on
// the primary or a replica (server/txroute), in one round trip.
func (s *Server) transact(x *exchange, steps []dbexec.Step) error {
	if len(steps) > 0 {
		x.obs.Statement(steps[len(steps)-1].Stmt.SQL) // the main one
	}
	return s.txs.Execute(x.w, x.r, x.tx, steps)
}
