package apierr

import "errors"

// ErrClientGone reports a request abandoned by its client: there is no
// one to answer and nothing went wrong on our side. Reading its body
// (package request) and running its statements (package dbexec) find it
// alike.
var ErrClientGone = errors.New("client closed the request")
