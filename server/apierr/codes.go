package apierr

import (
	"fmt"
	"strings"
)

// Constructors for SVC's own error codes (SPEC.md "Service error codes"),
// one per condition, so each status/code pair is written in one place.

// ParseError is SVC100: a request parameter does not follow the grammar.
func ParseError(message, details string) *Error {
	return &Error{Status: 400, Code: code("100"), Message: message, Details: str(details)}
}

// InvalidBody is SVC102: an empty or malformed request body; details says
// precisely what is wrong, or is "".
func InvalidBody(message, details string) *Error {
	return &Error{Status: 400, Code: code("102"), Message: message, Details: str(details)}
}

// UnsupportedContentType is SVC107 for a request body SVC cannot read.
func UnsupportedContentType(contentType string) *Error {
	return &Error{Status: 415, Code: code("107"), Message: "Content-Type not acceptable: " + contentType}
}

// InvalidRange is SVC103.
func InvalidRange(details string) *Error {
	return &Error{Status: 416, Code: code("103"), Message: "Requested range not satisfiable", Details: str(details)}
}

// UnacceptableSchema is SVC106: a profile header names a schema outside db-schemas.
func UnacceptableSchema(allowed []string) *Error {
	return &Error{Status: 406, Code: code("106"),
		Message: "The schema must be one of the following: " + strings.Join(allowed, ", ")}
}

// UnsupportedMediaType is SVC107 for an Accept header nothing a server
// under naming n can produce. When it asks for another naming's vendor types (postgrest-js's
// .single() sends application/vnd.pgrst.object+json), the advice names
// the compat-names setting that would answer them, and the log says so
// once (traces.go); the body is PostgREST's, hint null.
func UnsupportedMediaType(n Naming, accepted string) *Error {
	e := &Error{Status: 415, Code: code("107"), Message: "None of these media types are available: " + accepted}
	if advice, mode := otherVendorHint(n, accepted); advice != "" {
		e.Advice = advice
		e.trace = trace{kind: "media type", mode: mode, seen: "a request asked for " + accepted}
	}
	return e
}

// UnsupportedVerb is SVC117.
func UnsupportedVerb(method string) *Error {
	return &Error{Status: 405, Code: code("117"), Message: "Unsupported HTTP method: " + method}
}

// NotFound is a 404 for a path that is no route at all.
func NotFound() *Error {
	return &Error{Status: 404, Code: code("125"), Message: "Invalid path specified in request URL"}
}

// UndefinedTable answers a relation the snapshot does not hold the way
// PostgreSQL would (SQLSTATE 42P01), without asking the database; hint
// suggests what was meant, or is "".
func UndefinedTable(qualified, hint string) *Error {
	return &Error{Status: 404, Code: "42P01", Message: `relation "` + qualified + `" does not exist`, Hint: str(hint)}
}

// UndefinedColumn answers an unknown column the way PostgreSQL would
// (SQLSTATE 42703); hint suggests the closest column when there is one.
func UndefinedColumn(relation, column, hint string) *Error {
	return &Error{Status: 400, Code: "42703",
		Message: fmt.Sprintf("column %s.%s does not exist", relation, column), Hint: str(hint)}
}

// retryAfter tells clients of a 503 when to try again: the pool and the
// snapshot loader retry on their own within about that long.
var retryAfter = map[string]string{"Retry-After": "1"}

// ConnectionRefused is SVC000: no connection to the database could be made
// (wrong db-uri, or the database is not running). The driver's words name
// the database's host and port, user and database, so callers get a
// generic detail and err goes to the log (Cause).
func ConnectionRefused(err error) *Error {
	return &Error{Status: 503, Code: code("000"), Message: "Database connection error. Retrying the connection.",
		Details: "No connection to the database could be made; the server's log has the cause.",
		Headers: retryAfter, Cause: err}
}

// ConnectionFailed is SVC001: a connection broke while in use. As with
// ConnectionRefused, the driver's words go to the log only.
func ConnectionFailed(err error) *Error {
	return &Error{Status: 503, Code: code("001"), Message: "Database client error. Retrying the connection.",
		Details: "The connection to the database failed while in use; the server's log has the cause.",
		Headers: retryAfter, Cause: err}
}

// SnapshotUnavailable is SVC002: no schema snapshot could be loaded yet
// (the database was unreachable at start); the loader keeps retrying.
func SnapshotUnavailable() *Error {
	return &Error{Status: 503, Code: code("002"), Message: "Could not query the database for the schema cache. Retrying.",
		Headers: retryAfter}
}

// StaleCatalog is SVC004: the request met a database session that knew
// objects a migration has since replaced (a prepared statement or a cached
// type whose id is gone), and could not be run again on a new session: it
// calls a VOLATILE function, which may act outside its transaction, or no
// new session could be had. The session is not used again, so the
// client's retry meets the catalog as it is. err, PostgreSQL's own words,
// goes to the log.
func StaleCatalog(err error) *Error {
	return &Error{Status: 503, Code: code("004"), Message: "The database schema changed while the request ran. Retry it.",
		Details: "A migration replaced objects the request's database session had cached; the session is no longer used.",
		Headers: retryAfter, Cause: err}
}

// StaleSnapshot is SVC004 too: a migration changed what a function the
// request calls returns (a table or a set where a value was) since the
// schema snapshot in force was taken, and PostgreSQL refused the
// statement built from the snapshot. The request is refused, not
// answered in the old shape, until the server reloads; the retry after a
// reload gets the new answer. err, PostgreSQL's own words, goes to the
// log.
func StaleSnapshot(err error) *Error {
	return &Error{Status: 503, Code: code("004"), Message: "The database schema changed while the request ran. Retry it.",
		Details: "A migration changed a function the request calls since the schema snapshot in force was taken; the server has not reloaded it yet.",
		Headers: retryAfter, Cause: err}
}

// PoolTimeout is SVC003: no free connection within db-pool-acquisition-timeout.
func PoolTimeout() *Error {
	return &Error{Status: 504, Code: code("003"), Message: "Timed out acquiring connection from connection pool."}
}

// AnonymousDisabled is SVC302: no token and no db-anon-role.
func AnonymousDisabled() *Error {
	return &Error{Status: 401, Code: code("302"), Message: "Anonymous access is disabled",
		Headers: map[string]string{"WWW-Authenticate": "Bearer"}}
}

// InvalidPreferences is SVC122: handling=strict with preferences SVC does
// not understand.
func InvalidPreferences(invalid []string) *Error {
	return &Error{Status: 400, Code: code("122"), Message: "Invalid preferences given with handling=strict",
		Details: "Invalid preferences: " + strings.Join(invalid, ", ")}
}

// SingularityError is SVC116: a single object was asked for and the result
// has another number of rows.
func SingularityError(rows int64) *Error {
	return &Error{Status: 406, Code: code("116"), Message: "JSON object requested, multiple (or no) rows returned",
		Details: fmt.Sprintf("The result contains %d rows", rows)}
}

// OffsetBeyondTotal is SVC103 for an offset past the counted rows.
func OffsetBeyondTotal(offset, total int64) *Error {
	e := InvalidRange(fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", offset, total))
	e.Headers = map[string]string{"Content-Range": fmt.Sprintf("*/%d", total)}
	return e
}
