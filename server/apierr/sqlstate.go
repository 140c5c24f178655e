package apierr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// sqlstateStatus maps SQLSTATE codes to HTTP statuses (SPEC.md "Errors").
// Exact codes are looked up first, then two-character classes; anything
// else is 400.
var sqlstateStatus = map[string]int{
	"23503": 409, "23505": 409, "25006": 405, "53400": 500,
	"42883": 404, "42P01": 404, "42P17": 500,
	// The server shut down under the connection, or ended it to recover
	// from a crash, or is still recovering: the pool reconnects.
	"57P01": 503, "57P02": 503, "57P03": 503,
	"08": 503, "09": 500, "0L": 403, "0P": 403, "25": 500, "28": 403, "2D": 500,
	"38": 500, "39": 500, "3B": 500, "40": 500, "53": 503, "54": 500, "55": 500,
	"57": 500, "58": 500, "F0": 500, "HV": 500, "P0": 500, "XX": 500,
	"P0001": 400,
}

// StatusForSQLState gives the HTTP status for a database error. 42501
// (insufficient privilege) depends on whether the caller authenticated.
func StatusForSQLState(state string, authenticated bool) int {
	if state == "42501" {
		if authenticated {
			return 403
		}
		return 401
	}
	if s, ok := sqlstateStatus[state]; ok {
		return s
	}
	if len(state) == 5 {
		if s, ok := sqlstateStatus[state[:2]]; ok {
			return s
		}
	}
	return 400
}

// FromPG forwards a database error with the database's own code and text,
// for a server under naming n. Two kinds of SQLSTATE raised on purpose by
// functions choose the response themselves: PTnnn answers status nnn, and
// n's RaiseState (SVC.., or PGRST) carries the whole error body (message)
// and status and headers (detail) as JSON.
func FromPG(n Naming, e *pgconn.PgError, authenticated bool) *Error {
	if strings.HasPrefix(e.Code, n.RaiseState) {
		return raised(n, e)
	}
	out := fromState(e, authenticated)
	if mode := otherRaiseState(n, e.Code); mode != "" {
		// A function written for PostgREST (RAISE SQLSTATE 'PGRST' under
		// SVC's names): answered as any SQLSTATE, with the fix.
		out.Advice = fmt.Sprintf("SQLSTATE '%s' is the custom error of compat-names = %s, and this server runs under compat-names = %s: "+
			"raise SQLSTATE '%s' (the same message and detail) instead, or set compat-names = %s", e.Code, mode, n.Mode(),
			raiseStateOf(n), mode)
		out.trace = trace{kind: "raise", mode: mode, seen: "a function raised SQLSTATE '" + e.Code + "'"}
	}
	return out
}

// fromState is the answer to a SQLSTATE that is no naming's custom error:
// its status (a PTnnn's own, or by the table), the database's code and
// words.
func fromState(e *pgconn.PgError, authenticated bool) *Error {
	if status, ok := ptStatus(e.Code); ok {
		return &Error{Status: status, Code: e.Code, Message: e.Message, Details: str(e.Detail), Hint: str(e.Hint), fromDB: true}
	}
	status := StatusForSQLState(e.Code, authenticated)
	if e.Code == "22023" && strings.HasPrefix(e.Message, "role ") && strings.HasSuffix(e.Message, " does not exist") {
		// The role a token names is unknown to the database: the token is
		// at fault, not the request (PostgREST answers the same).
		status = 401
	}
	out := &Error{
		Status:  status,
		Code:    e.Code,
		Message: e.Message,
		Details: str(e.Detail),
		Hint:    str(e.Hint),
		fromDB:  true,
	}
	switch out.Status {
	case 401:
		// An anonymous caller refused a privilege is told to authenticate
		// (RFC 7235: a 401 carries a challenge).
		out.Headers = map[string]string{"WWW-Authenticate": "Bearer"}
	case 503:
		out.Headers = retryAfter
	}
	return out
}

// raiseStateOf is a whole SQLSTATE naming n's custom error: its
// RaiseState, completed to five characters ('SVC00').
func raiseStateOf(n Naming) string {
	return n.RaiseState + "00"[:5-len(n.RaiseState)]
}

// ptStatus reads the HTTP status of a PTnnn SQLSTATE.
func ptStatus(state string) (int, bool) {
	if len(state) != 5 || !strings.HasPrefix(state, "PT") {
		return 0, false
	}
	n, err := strconv.Atoi(state[2:])
	if err != nil || n < 100 || n > 599 {
		return 0, false
	}
	return n, true
}

// PermissionDenied is the error PostgreSQL gives a role without the
// privilege on an object (42501), for refusing a request the snapshot's
// grants already show cannot run, before its body is read. kind is
// PostgreSQL's word for the object: table, view, materialized view,
// foreign table or function.
func PermissionDenied(kind, name string, authenticated bool) *Error {
	return fromState(&pgconn.PgError{Code: "42501", Message: "permission denied for " + kind + " " + name}, authenticated)
}
