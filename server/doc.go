// Package server is SVC's HTTP handler: routes, the current schema snapshot
// and its hot reload, the one-round-trip transaction that runs each
// request's statement, and response writing. It wires the pure stages
// (request -> plan -> query) together and is the only package that knows
// both HTTP and the database.
package server
