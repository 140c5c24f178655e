package apierr

import "fmt"

// Errors of writes (SPEC.md "Writing").

// UnknownPayloadColumn is SVC204: a body key that is no column of the
// relation.
func UnknownPayloadColumn(relation, column string) *Error {
	return &Error{Status: 400, Code: code("204"),
		Message: fmt.Sprintf("Could not find the '%s' column of '%s' in the schema cache", column, relation)}
}

// LimitWithoutOrder is SVC109: a limited PATCH or DELETE needs an order to
// say which rows.
func LimitWithoutOrder() *Error {
	return &Error{Status: 400, Code: code("109"), Message: "A 'limit' was applied without an explicit 'order'",
		Hint: "Apply an 'order' using unique column(s)"}
}

// LimitExceeded is SVC110: a limited PATCH or DELETE changed more rows
// than its limit (triggers can); it was rolled back.
func LimitExceeded(rows, limit int64) *Error {
	return &Error{Status: 400, Code: code("110"), Message: "The maximum number of rows allowed to change was surpassed",
		Details: fmt.Sprintf("Results contain %d rows changed but the maximum number allowed is %d", rows, limit)}
}

// InvalidPutFilters is SVC105: PUT addresses one row by its whole primary
// key with eq filters and nothing else.
func InvalidPutFilters() *Error {
	return &Error{Status: 405, Code: code("105"),
		Message: "Filters must include all and only primary key columns with 'eq' operators"}
}

// PutWithLimit is SVC114: PUT addresses one row, so a window makes no sense.
func PutWithLimit() *Error {
	return &Error{Status: 400, Code: code("114"), Message: "limit/offset querystring parameters are not allowed for PUT"}
}

// PutMismatch is SVC115: the key in PUT's body differs from the URL's.
func PutMismatch() *Error {
	return &Error{Status: 400, Code: code("115"), Message: "Payload values do not match URL in primary key column(s)"}
}

// MaxAffectedExceeded is SVC124: a write touched more rows than Prefer:
// max-affected allows; it was rolled back.
func MaxAffectedExceeded(rows int64) *Error {
	return &Error{Status: 400, Code: code("124"), Message: "Query result exceeds max-affected preference constraint",
		Details: fmt.Sprintf("The query affects %d rows", rows)}
}

// MaxAffectedNotSet is SVC128: Prefer: max-affected under handling=strict
// bounds the rows a call returns, which only a set-returning function has.
func MaxAffectedNotSet() *Error {
	return &Error{Status: 400, Code: code("128"), Message: "Function must return SETOF or TABLE when max-affected preference is used with handling=strict"}
}
