package query

import (
	"strings"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

// Explained is the statement a request for the plan media type m runs:
// the EXPLAIN, in m's format and with its options, of the statement plan
// p would run for the media type m names in `for`, its body built whole
// by PostgreSQL so that the plan reads as PostgREST's. A write's EXPLAIN
// runs it only under options=analyze, and its transaction then ends as
// any other (Prefer: tx=rollback).
func Explained[P *plan.Read | *plan.Write | *plan.Call](p P, m request.Media) Statement {
	inner := request.Media{Kind: m.PlanFor}
	var st Statement
	switch p := any(p).(type) {
	case *plan.Read:
		read := *p
		read.Media = inner
		st = Whole(&read)
	case *plan.Write:
		write, read := *p, *p.Read
		read.Media = inner
		write.Read = &read
		st = WriteWhole(&write)
	case *plan.Call:
		call := *p
		if p.Read != nil {
			read := *p.Read
			read.Media = inner
			call.Read = &read
		}
		st = CallWhole(&call)
	}
	return Explain(st, m.PlanJSON, m.PlanOptions)
}

// Explain wraps stmt in EXPLAIN with the plan media type's format and
// options. The options come from a fixed list checked during negotiation,
// so they are safe to write into the statement.
func Explain(stmt Statement, asJSON bool, options []string) Statement {
	format := "text"
	if asJSON {
		format = "json"
	}
	var sb strings.Builder
	sb.WriteString("explain (format ")
	sb.WriteString(format)
	for _, o := range options {
		sb.WriteString(", ")
		sb.WriteString(o)
	}
	sb.WriteString(") ")
	sb.WriteString(stmt.SQL)
	stmt.SQL, stmt.Sum = sb.String(), 0
	return stmt
}
