package apierr

// AggregatesNotAllowed is SVC123: select uses an aggregate function while
// db-aggregates-enabled is off.
func AggregatesNotAllowed() *Error {
	return &Error{Status: 400, Code: code("123"), Message: "Use of aggregate functions is not allowed"}
}
