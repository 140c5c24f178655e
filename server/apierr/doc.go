// Package apierr is SVC's error type: every failure a caller sees leaves as
// one *Error with an HTTP status, a code (an SVC code or a SQLSTATE), a
// message, details and a hint. It holds the SVC code catalogue and the
// SQLSTATE -> HTTP status table as data. It imports nothing else of SVC.
package apierr
