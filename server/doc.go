// Package server is SVC's HTTP handler: routes, the current schema snapshot
// and its hot reload, the one-round-trip transaction that runs each
// request's statement, and response writing. It wires the pure stages
// (request -> plan -> query) together and is the only package that knows
// both HTTP and the database. Reads of a shape seen before skip the three
// stages: the statements kept from the first such read are bound to the
// request's own filter operands and arguments (shapecache.go).
package server
