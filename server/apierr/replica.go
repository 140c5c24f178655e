package apierr

import "strconv"

// InvalidCommitLSN is SVC100: a request sent back, in the SVC-Commit-LSN
// header, something that is not a WAL position. Sending the read to the
// primary instead, as if the position were one it had not replayed, would
// let any client put every read on the primary.
func InvalidCommitLSN(header, value string) *Error {
	return &Error{Status: 400, Code: code("100"), Message: "Invalid " + header + " header",
		Details: strconv.Quote(value) + " is not a WAL position such as 16/B374D848",
		Hint:    "Send back the value of " + header + " a write's answer carried, or none"}
}
