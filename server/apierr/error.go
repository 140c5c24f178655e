package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Error is an error with everything its HTTP response needs.
type Error struct {
	Status int
	// Code is SVC's own code in SVCNaming's spelling (SVC100), whatever
	// the naming the answer is written under (CodeIn), or a SQLSTATE, or
	// the code a function raised.
	Code    string
	Message string
	// Details is a string, nil, or (for ambiguous embeds) a list of objects.
	Details any
	// Hint is a string or nil.
	Hint any
	// Advice is SVC's own word on the cause, beyond what PostgREST's body
	// says: sent in AdviceHeader and logged, never in the body.
	Advice string
	// trace is another naming's name the request or a function used, for
	// the once-a-kind log line (traces.go).
	trace trace
	// fromDB marks a code that came from the database or a function's
	// RAISE: a SQLSTATE or a code of the function's choosing, written as
	// it came under any naming (CodeIn).
	fromDB bool
	// Headers are extra response headers (e.g. WWW-Authenticate).
	Headers map[string]string
	// Cause is what went wrong underneath, for the server's log only: it
	// may name what callers must not learn (the database's address, user
	// and name), so it never reaches the body.
	Cause error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message)
}

// body is the wire form; a separate type keeps Status and Headers out of it.
type body struct {
	Code    string `json:"code"`
	Details any    `json:"details"`
	Hint    any    `json:"hint"`
	Message string `json:"message"`
}

// CodeIn is e's code as naming n writes it: SVC's own codes take n's
// prefix (PGRST100 for SVC100); a SQLSTATE, or a code a function raised,
// is written as it came.
func (e *Error) CodeIn(n Naming) string {
	own, ok := strings.CutPrefix(e.Code, SVCNaming.CodePrefix)
	if e.fromDB || !ok || n.CodePrefix == SVCNaming.CodePrefix {
		return e.Code
	}
	return n.CodePrefix + own
}

// minimalBody is the wire form under Minimal.
type minimalBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Verbosity is how much of an error a client is told
// (client-error-verbosity).
type Verbosity uint8

const (
	// Verbose tells everything: code, message, details and hint, and
	// SVC's advice in its header.
	Verbose Verbosity = iota
	// Minimal tells the code and the message, as PostgREST 13's minimal
	// does; details, hint and advice go to the log only.
	Minimal
)

// JSON renders the response body under naming n, as verbose as v says.
func (e *Error) JSON(n Naming, v Verbosity) []byte {
	code := e.CodeIn(n)
	if v == Minimal {
		b, _ := json.Marshal(minimalBody{Code: code, Message: e.Message})
		return b
	}
	b, err := json.Marshal(body{Code: code, Details: e.Details, Hint: e.Hint, Message: e.Message})
	if err != nil {
		// Details built by SVC are always marshalable; reaching here is a bug
		// in a constructor, so answer with what is certainly encodable.
		b, _ = json.Marshal(body{Code: code, Message: e.Message})
	}
	return b
}

// From finds an *Error in err's chain; anything else becomes a 500 SVCX00
// naming the underlying failure.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// Internal reports an unexpected failure of SVC itself or its database
// driver.
func Internal(err error) *Error {
	return &Error{Status: 500, Code: code("X00"), Message: err.Error()}
}

func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}
