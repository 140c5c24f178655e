// Package dbexec runs a request's transaction on PostgreSQL: the request
// pool and its sessions, the one-round-trip pipeline (begin, the context
// set-up, the statements, commit), the prepared path that speaks the wire
// protocol itself once every statement of a request is prepared on its
// connection, and the per-connection statement cache. It knows SQL
// statements (server/query) and PostgreSQL, not HTTP: the handler builds a
// Tx from the request and reads the Result it gets back.
package dbexec
