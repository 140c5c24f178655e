package query

import (
	"strings"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// binaryOps maps filter operators that compare a column with one value to
// their SQL operator.
var binaryOps = map[string]string{
	"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"like": "like", "ilike": "ilike", "match": "~", "imatch": "~*",
	"isdistinct": "is distinct from",
	"cs":         "@>", "cd": "<@", "ov": "&&", "sl": "<<", "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-",
}

// ftsFuncs maps text-search operators to the tsquery constructor they use.
var ftsFuncs = map[string]string{
	"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery", "wfts": "websearch_to_tsquery",
}

// isSQL maps the operands of `is` to fixed SQL; they are keywords, not values.
var isSQL = map[string]string{
	"null": "is null", "not_null": "is not null", "true": "is true", "false": "is false", "unknown": "is unknown",
}

// where writes the WHERE clause: every filter and logic tree, ANDed.
// The conditions of an embed's join and its inner flag come first, through
// cond, which the caller may have already started.
func where(b *builder, sc *scope, c *conds) {
	n := sc.node
	for _, f := range n.Filters {
		c.next(b)
		filter(b, sc, f)
	}
	for _, t := range n.Logic {
		c.next(b)
		logicTree(b, sc, t)
	}
	for _, e := range n.Embeds {
		switch {
		case !e.Inner:
		case sc.counting:
			c.next(b)
			embedExists(b, sc, e)
		default:
			c.next(b)
			b.present(sc, e)
		}
	}
}

// conds writes " where " before the first condition and " and " between.
type conds struct{ n int }

func (c *conds) next(b *builder) {
	if c.n == 0 {
		b.write(" where ")
	} else {
		b.write(" and ")
	}
	c.n++
}

// logicTree writes `[not ](c1 or c2 ...)`.
func logicTree(b *builder, sc *scope, t request.LogicTree) {
	if t.Negate {
		b.write("not ")
	}
	b.write("(")
	sep := " and "
	if t.Or {
		sep = " or "
	}
	for i, c := range t.Conditions {
		if i > 0 {
			b.write(sep)
		}
		if c.Tree != nil {
			logicTree(b, sc, *c.Tree)
		} else {
			filter(b, sc, *c.Filter)
		}
	}
	b.write(")")
}

// filter writes one condition. Operands always travel as text bind
// parameters; PostgreSQL infers their type from the column, or the
// field's text -> domain cast reads them (see scope.parser).
func filter(b *builder, sc *scope, f request.Filter) {
	if e := sc.node.PresenceTest(f); e != nil {
		// Planning allowed only `is null` on an embed: a presence test,
		// written as it is (not the negation of its negation) so the
		// planner reads an EXISTS as the semi-join it is.
		switch {
		case sc.counting && f.Negate:
			embedExists(b, sc, e)
		case sc.counting:
			b.write("not ")
			embedExists(b, sc, e)
		case f.Negate:
			b.present(sc, e)
		default:
			b.absent(sc, e)
		}
		return
	}
	if f.Negate {
		b.write("not ")
	}
	b.write("(")
	parse := sc.parser(f)
	switch {
	case f.Op == "is":
		b.field(sc, f.Field)
		b.write(" ", isSQL[f.Value])
	case f.Op == "in":
		b.field(sc, f.Field)
		b.write(" = any(")
		operandList(b, f, parse)
		b.write(")")
	case f.Quantifier != "":
		b.field(sc, f.Field)
		b.write(" ", binaryOps[f.Op], " ", f.Quantifier, "(")
		operandList(b, f, parse)
		b.write(")")
	case ftsFuncs[f.Op] != "":
		searched(b, sc, f)
		b.write(" @@ ", ftsFuncs[f.Op], "(")
		if f.Language != "" {
			b.operand(f, 0)
			b.write("::regconfig, ")
			b.operand(f, 1)
		} else {
			b.operand(f, 0)
		}
		b.write(")")
	default:
		b.field(sc, f.Field)
		b.write(" ", binaryOps[f.Op], " ")
		if parse != nil {
			b.call(parse, func() { b.operand(f, 0) })
		} else {
			b.operand(f, 0)
		}
	}
	b.write(")")
}

// operandList writes the array operand of `in` and of any/all, each
// element read by parse when the field has a text parser.
func operandList(b *builder, f request.Filter, parse *snapshot.QualifiedName) {
	if parse == nil {
		b.operand(f, 0)
		return
	}
	b.write("(select ")
	b.call(parse, func() {
		b.write("pg_catalog.unnest(")
		b.operand(f, 0)
		b.write("::text[])")
	})
	b.write(")")
}

// searched writes what a full-text search searches: a tsvector as it is,
// anything else (text, json, jsonb, a path) through to_tsvector, in the
// search's language when it names one, as PostgREST does.
func searched(b *builder, sc *scope, f request.Filter) {
	if len(f.Field.Path) == 0 && sc.baseType(f.Field.Name) == "tsvector" {
		b.field(sc, f.Field)
		return
	}
	b.write("pg_catalog.to_tsvector(")
	if f.Language != "" {
		b.operand(f, 0)
		b.write("::regconfig, ")
	}
	b.field(sc, f.Field)
	b.write(")")
}

// OperandArg is the part-th value filter f binds: the text search
// language and then the query for a full-text search with a language,
// the one operand otherwise. A statement built for one request binds
// another request of the same shape by it (see Source).
func OperandArg(f request.Filter, part int) string {
	switch {
	case f.Op == "in":
		return plan.ArrayLiteral(f.List)
	case ftsFuncs[f.Op] != "":
		if f.Language != "" && part == 0 {
			return f.Language
		}
		return f.Value
	}
	return likePattern(f.Op, f.Value)
}

// likePattern lets `*` stand for `%` in like/ilike operands, sparing callers
// URL-encoding of `%`. An any/all operand is an array literal as written,
// which PostgreSQL reads, so its patterns change the same way.
func likePattern(op, v string) string {
	if op == "like" || op == "ilike" {
		return strings.ReplaceAll(v, "*", "%")
	}
	return v
}
