// Package query turns a plan into one SQL statement and its arguments.
// Identifiers are always quoted and values are always bind parameters, so
// the SQL text depends only on the request's shape and prepared statements
// are reused across requests. Each argument records where it came from
// (Source), so a statement kept for a shape can bind another request of
// it without being built again. The statement builds the response body inside
// PostgreSQL (json_agg), so rows are never decoded in Go.
package query
