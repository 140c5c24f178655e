package apierr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgconn"
)

// A function chooses its whole answer by raising SQLSTATE 'SVC..'
// ('PGRST' under PostgREST's names): the message is the body, a JSON
// object {code, message, details?, hint?}, and the detail the status and
// headers, {status, headers, status_text?}. Both are read as PostgREST
// reads them, key by key and type by type, so that a function written for
// PostgREST is refused (SVC121) exactly where PostgREST refuses it.

// The hints of SVC121, PostgREST's, naming what each field must hold.
const (
	raiseMessageHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
	raiseDetailHint  = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
)

// raised builds the answer e's message and detail specify, or SVC121
// saying which of the two is not what it must be.
func raised(n Naming, e *pgconn.PgError) *Error {
	var body struct {
		Code, Message string
		Details, Hint *string
	}
	ok := readRaised([]byte(e.Message), func(m map[string]json.RawMessage) bool {
		return need(m, "code", &body.Code) && need(m, "message", &body.Message) &&
			optional(m, "details", &body.Details) && optional(m, "hint", &body.Hint)
	})
	if !ok {
		return unparsableRaise(n, "Invalid JSON value for MESSAGE: '"+e.Message+"'", raiseMessageHint)
	}
	// PostgreSQL sends an empty DETAIL as none: either is missing.
	if e.Detail == "" {
		return unparsableRaise(n, "DETAIL is missing in the RAISE statement", raiseDetailHint)
	}
	var status float64
	var headers map[string]string
	// status_text is checked as PostgREST checks it, not sent: the
	// reason phrase is the status's own.
	var statusText *string
	ok = readRaised([]byte(e.Detail), func(m map[string]json.RawMessage) bool {
		return need(m, "status", &status) && need(m, "headers", &headers) && optional(m, "status_text", &statusText)
	})
	badDetail := "Invalid JSON value for DETAIL: '" + e.Detail + "'"
	if !ok || status != math.Trunc(status) {
		return unparsableRaise(n, badDetail, raiseDetailHint)
	}
	// Beyond PostgREST: a status HTTP has no room for, or a header it
	// cannot carry as set, would not reach the client as the function
	// meant; the hint says which.
	if status < 100 || status > 599 {
		return unparsableRaise(n, badDetail, fmt.Sprintf("The status %v is no HTTP status code.", status))
	}
	for name, value := range headers {
		if reason := HeaderFieldError(name, value); reason != "" {
			return unparsableRaise(n, badDetail, fmt.Sprintf("The header %q cannot be sent: %s.", name, reason))
		}
	}
	return &Error{Status: int(status), Code: body.Code, Message: body.Message, Details: strPtr(body.Details),
		Hint: strPtr(body.Hint), Headers: headers, fromDB: true}
}

// readRaised decodes text as a JSON object and hands its members to read,
// which reports whether they are what they must be.
func readRaised(text []byte, read func(map[string]json.RawMessage) bool) bool {
	var m map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(text), []byte("{")) || json.Unmarshal(text, &m) != nil {
		return false
	}
	return read(m)
}

// need decodes the member key into v: it must be there, not null, and of
// v's type (a JSON string for a string, an integer for a status).
func need[T any](m map[string]json.RawMessage, key string, v *T) bool {
	raw, ok := m[key]
	return ok && string(raw) != "null" && strictDecode(raw, v)
}

// optional decodes the member key into v when it is there and not null:
// absent and null are both no value, as PostgREST reads them.
func optional[T any](m map[string]json.RawMessage, key string, v **T) bool {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return true
	}
	*v = new(T)
	return strictDecode(raw, *v)
}

// strictDecode decodes raw into v, refusing what encoding/json would let
// through though it is not of v's type: null members of a map of
// headers, which would read as empty strings.
func strictDecode[T any](raw json.RawMessage, v *T) bool {
	if json.Unmarshal(raw, v) != nil {
		return false
	}
	if _, headers := any(v).(*map[string]string); headers {
		var members map[string]json.RawMessage
		json.Unmarshal(raw, &members)
		for _, m := range members {
			if len(m) == 0 || m[0] != '"' {
				return false
			}
		}
	}
	return true
}

// strPtr is a JSON value for an optional string: null when absent.
func strPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// unparsableRaise is SVC121, for a server under naming n.
func unparsableRaise(n Naming, details, hint string) *Error {
	return &Error{Status: 500, Code: code("121"),
		Message: `Could not parse JSON in the "RAISE SQLSTATE '` + n.RaiseState + `'" error`,
		Details: details, Hint: hint}
}
