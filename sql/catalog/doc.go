// Package catalog reads the PostgreSQL system catalog and turns it into a
// snapshot: relations, columns, keys, functions, casts, roles, grants and
// comments of the exposed schemas, plus every relationship embedding can
// use, inferred here once so that the server never reasons about foreign
// keys while serving.
//
// Cost: Introspect runs a fixed set of catalog queries (the .sql files in
// queries/, each once for all objects) in one read-only REPEATABLE READ
// transaction, so the snapshot is consistent even while DDL runs. The query
// count does not grow with the schema; the time does, roughly linearly in
// relations, columns and view definitions (see BenchmarkIntrospect).
//
// The package only reads: it never changes the database, and it is not used
// on the request path (servers load the snapshot it produces).
package catalog
