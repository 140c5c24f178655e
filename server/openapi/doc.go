// Package openapi builds the root endpoint's description of the API: a
// Swagger 2.0 document shaped as PostgREST 12 serves it (paths per
// relation and per function, a definition per relation, the shared
// parameters, optional JWT security), for one exposed schema.
//
// It is pure: a snapshot, Options and the requesting role go in, JSON bytes
// come out. It does no HTTP and asks the database nothing; in the
// follow-privileges mode what a role may use is derived from the
// snapshot's grants and role memberships (snapshot.Access). Building walks
// every relation and function of the schema once, so its cost grows with
// the schema; Cache keeps each document built, per snapshot, options and
// set of privileges, so that serving it does not.
package openapi
