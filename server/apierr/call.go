package apierr

import (
	"fmt"
	"strings"
)

// Errors of function calls (SPEC.md "Function calls").

// NoFunction is SVC202: no function of that name takes the arguments given.
// args are the names supplied; hint suggests the closest function, or "".
func NoFunction(qualified string, args []string, hint string) *Error {
	with := " without parameters"
	if len(args) > 0 {
		with = " with parameter"
		if len(args) > 1 {
			with += "s"
		}
		with += " " + strings.Join(args, ", ")
	}
	return &Error{Status: 404, Code: code("202"),
		Message: "Could not find the function " + qualified + "(" + strings.Join(args, ", ") + ") in the schema cache",
		Details: "Searched for the function " + qualified + with + ", but no matches were found in the schema cache.",
		Hint:    str(hint)}
}

// AmbiguousFunction is SVC203: overloads that the argument names given
// cannot tell apart. candidates are rendered "schema.fn(a => type, ...)".
func AmbiguousFunction(candidates []string) *Error {
	return &Error{Status: 300, Code: code("203"),
		Message: "Could not choose the best candidate function between: " + strings.Join(candidates, ", "),
		Hint:    "Try renaming the parameters or the function itself in the database so function overloading can be resolved"}
}

// InvalidResponseHeaders is SVC111: response.headers is not a JSON array
// of one-key objects with string values.
func InvalidResponseHeaders() *Error {
	return &Error{Status: 500, Code: code("111"),
		Message: "response.headers guc must be a JSON array composed of objects with a single key and a string value"}
}

// InvalidResponseHeader is SVC111 for a header in response.headers that
// HTTP cannot carry as set; reason is HeaderFieldError's.
func InvalidResponseHeader(name, reason string) *Error {
	return &Error{Status: 500, Code: code("111"),
		Message: "response.headers guc must hold header names and values HTTP can carry",
		Details: str(fmt.Sprintf("The header %q cannot be sent: %s", name, reason))}
}

// InvalidResponseStatus is SVC112: response.status is not a status code.
func InvalidResponseStatus() *Error {
	return &Error{Status: 500, Code: code("112"), Message: "response.status guc must be a valid status code"}
}

// UnsupportedRPCMethod is SVC101: functions are called with GET, HEAD or
// POST only.
func UnsupportedRPCMethod(method string) *Error {
	return &Error{Status: 405, Code: code("101"), Message: "Cannot use the " + method + " method on RPC"}
}
