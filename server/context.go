package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/snapshot"
)

// NewVerifier builds the JWT verifier cfg describes, or nil when no key is
// configured (a request with a token then fails with SVC300).
func NewVerifier(ctx context.Context, cfg *config.Config) (*auth.Verifier, error) {
	return auth.New(ctx, verifierOptions(cfg))
}

// CheckJWTConfig reports what NewVerifier would refuse in cfg, without
// fetching a JWKS: start-up reports a mistyped key before connecting.
func CheckJWTConfig(cfg *config.Config) error { return auth.Check(verifierOptions(cfg)) }

func verifierOptions(cfg *config.Config) auth.Options {
	return auth.Options{
		Secret:          cfg.JWTSecret,
		SecretIsBase64:  cfg.JWTSecretIsBase64,
		Audience:        cfg.JWTAud,
		RoleClaimKey:    cfg.JWTRoleClaimKey,
		JWKSURL:         cfg.JWTJWKSURL,
		CacheMaxEntries: cfg.JWTCacheMaxEntries,
	}
}

// txFor builds the request's transaction context: the role (from a
// verified token's role claim, else db-anon-role), the role's own settings
// from the snapshot, and what PostgREST hands to SQL about the request.
// The token's verification is Server-Timing's jwt figure, noted in obs.
func (s *Server) txFor(obs *observation, r *http.Request, snap *snapshot.Snapshot) (dbexec.Tx, error) {
	tx := dbexec.Tx{Method: r.Method, Path: r.URL.Path}
	var id auth.Identity
	if token, ok := auth.BearerToken(r.Header.Get("Authorization")); ok {
		// Verify on a nil verifier (no key configured) answers SVC300.
		t0 := obs.stageStart()
		var err error
		id, err = s.jwt.Verify(token)
		obs.jwtDone(t0)
		if err != nil {
			return dbexec.Tx{}, err
		}
		tx.Role = id.Role
		// As in PostgREST, only a role named by the token counts as
		// authenticated: a privilege error is then 403, not 401.
		tx.Authenticated = id.Role != ""
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
	tx.Headers = headersJSON(r.Header)
	tx.Cookies = cookiesJSON(r.Cookies())
	tx.PreRequest = s.preRequest
	return tx, nil
}

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
	return &query.Statement{SQL: dbexec.CallSQL(name)}
}

// appSettingsOf renders app.settings.* configuration keys as settings.
func appSettingsOf(cfg *config.Config) [][2]string {
	out := make([][2]string, 0, len(cfg.AppSettings))
	for name, value := range cfg.AppSettings {
		out = append(out, [2]string{"app.settings." + name, value})
	}
	return out
}

// headersJSON renders the request headers as one JSON object with
// lower-case names, as request.headers; repeated headers are joined with
// ", " as HTTP allows.
func headersJSON(h http.Header) string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for name, values := range h {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(&b, strings.ToLower(name))
		b.WriteByte(':')
		writeJSONString(&b, strings.Join(values, ", "))
	}
	b.WriteByte('}')
	return b.String()
}

// cookiesJSON renders the request cookies as request.cookies; the last of
// several cookies with one name wins.
func cookiesJSON(cookies []*http.Cookie) string {
	if len(cookies) == 0 {
		return "{}"
	}
	seen := make(map[string]string, len(cookies))
	order := make([]string, 0, len(cookies))
	for _, c := range cookies {
		if _, dup := seen[c.Name]; !dup {
			order = append(order, c.Name)
		}
		seen[c.Name] = c.Value
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, name)
		b.WriteByte(':')
		writeJSONString(&b, seen[name])
	}
	b.WriteByte('}')
	return b.String()
}

// writeJSONString writes s as a JSON string. Ranging over s turns invalid
// UTF-8 into U+FFFD, so PostgreSQL's json parser always accepts the result.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
