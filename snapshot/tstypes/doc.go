// Package tstypes writes the TypeScript `Database` type of a snapshot: the
// shape postgrest-js and supabase-js type their queries with (per schema,
// Tables and Views with Row, Insert, Update and Relationships, Functions,
// Enums, CompositeTypes), as Supabase's generator writes it from a live
// database. It reads only the snapshot, so CI writes the types offline, in
// the step that dumps the schema.
//
// The mapping of PostgreSQL types follows Supabase's generator so that a
// frontend can switch between the two; where the snapshot knows more (a
// domain over a domain, a column default a domain gives) or less (which
// columns of a view take writes), docs/typescript.md lists the
// difference and its reason.
//
// Output is a pure function of the snapshot and the options: everything is
// sorted by name in byte order, so two dumps of one schema give the same
// bytes and CI can diff them.
package tstypes
