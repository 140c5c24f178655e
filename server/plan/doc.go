// Package plan resolves a parsed request against the schema snapshot: which
// relation in which schema, which columns, and the window of rows. Every
// "not found" or "ambiguous" answer about the schema is raised here, so the
// query builder below only ever sees names that exist. It knows nothing of
// HTTP and never queries the database.
package plan
