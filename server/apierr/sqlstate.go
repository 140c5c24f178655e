package apierr

import "github.com/jackc/pgx/v5/pgconn"

// sqlstateStatus maps SQLSTATE codes to HTTP statuses (SPEC.md "Errors").
// Exact codes are looked up first, then two-character classes; anything
// else is 400.
var sqlstateStatus = map[string]int{
	"23503": 409, "23505": 409, "25006": 405, "53400": 500,
	"42883": 404, "42P01": 404, "42P17": 500,
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

// FromPG forwards a database error with the database's own code and text.
func FromPG(e *pgconn.PgError, authenticated bool) *Error {
	return &Error{
		Status:  StatusForSQLState(e.Code, authenticated),
		Code:    e.Code,
		Message: e.Message,
		Details: str(e.Detail),
		Hint:    str(e.Hint),
	}
}
