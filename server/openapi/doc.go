// Package openapi builds the root endpoint's description of the API, for
// one exposed schema, in two versions: a Swagger 2.0 document shaped as
// PostgREST 12 serves it (paths per relation and per function, a
// definition per relation, the shared parameters, optional JWT security),
// and an OpenAPI 3.1 one describing the same routes with what 2.0 cannot
// say (several media types per operation, nullable and read-only
// properties, SVC's error object, bearer security), for tools that need
// 3.x. Sub-package ui serves a reference page for it.
//
// It is pure: a snapshot, Options and the requesting role go in, JSON bytes
// come out. It does no HTTP and asks the database nothing; in the
// follow-privileges mode what a role may use is derived from the
// snapshot's grants and role memberships (snapshot.Access). Building walks
// every relation and function of the schema once, so its cost grows with
// the schema; its memory does not: Write streams the document a path or a
// schema at a time. Cache keeps each document built, per snapshot,
// options and set of privileges (compressed when that is what fits), so
// that serving it again costs no build.
package openapi
