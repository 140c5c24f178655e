package request

import (
	"fmt"

	"github.com/svc-dev/svc/server/apierr"
)

// Limits bound the size of a parsed request, so that one request cannot
// make the planner and PostgreSQL build an arbitrarily large query. The
// URL's length bounds these already, but loosely: 64 KiB of URL holds
// thousands of filters. A field of zero or less sets no bound.
type Limits struct {
	// Filters bounds the filter conditions: top-level ones, every leaf of
	// every logic tree, those on embedded resources and, for function
	// calls, the parameters left to planning (arguments or filters).
	Filters int
	// SelectItems bounds the select items, embedded resources' included.
	SelectItems int
	// EmbedDepth bounds how deeply embeds nest: `a(b())` is two levels.
	EmbedDepth int
	// Embeds bounds the embedded resources at every level: each is a
	// subquery PostgreSQL plans (and, for a role that turns JIT on,
	// compiles) before a statement timeout can stop it.
	Embeds int
	// JSONPathDepth bounds the arrows of any one JSON path, in select,
	// filters and order: PostgreSQL nests an operator call per arrow.
	JSONPathDepth int
	// JSONPathSteps bounds the arrows of all JSON paths together: each is
	// an operator call per row, and the expressions grow with them.
	// JSONPathDepth alone lets request-max-filters paths of the greatest
	// depth through.
	JSONPathSteps int
	// LogicDepth bounds how deeply logic trees nest: `or=(a.eq.1)` is one
	// level, `or=(and(a.eq.1))` two. PostgreSQL's parser nests as deep.
	LogicDepth int
}

// CheckLimits refuses (400 SVC100) a request larger than l allows. It is
// separate from Parse because the bounds are configuration, which the
// grammar does not know; each count is one walk over what Parse built.
func (r *Request) CheckLimits(l Limits) error {
	for i := range limitChecks {
		c := &limitChecks[i]
		if bound := c.bound(l); bound > 0 {
			if n := c.count(r); n > bound {
				return apierr.ParseError(fmt.Sprintf(c.message, bound), fmt.Sprintf(c.detail, n, bound))
			}
		}
	}
	return nil
}

// limitChecks are CheckLimits' checks, in the order it makes them: the
// bound a Limits field sets (Limits is passed by value: a pointer would
// move every request's Limits to the heap), what it counts, and the
// error's message (given the bound) and details (the count, then the
// bound).
var limitChecks = [...]struct {
	bound           func(Limits) int
	count           func(*Request) int
	message, detail string
}{
	{func(l Limits) int { return l.Filters }, (*Request).filterCount,
		"More than %d filters",
		"The request has %d filter conditions; request-max-filters allows %d"},
	{func(l Limits) int { return l.SelectItems }, func(r *Request) int { return selectItemCount(r.Select) },
		"More than %d select items",
		"The select list has %d items, embedded resources' included; request-max-select-items allows %d"},
	{func(l Limits) int { return l.EmbedDepth }, func(r *Request) int { return embedDepth(r.Select) },
		"Embedding deeper than %d levels",
		"The select list embeds %d levels deep; request-max-embed-depth allows %d"},
	{func(l Limits) int { return l.Embeds }, func(r *Request) int { return embedCount(r.Select) },
		"More than %d embedded resources",
		"The select list embeds %d resources, nested ones included; request-max-embeds allows %d"},
	{func(l Limits) int { return l.JSONPathDepth }, (*Request).jsonPathDepth,
		"JSON path longer than %d steps",
		"A JSON path in the request has %d steps; request-max-json-path-depth allows %d"},
	{func(l Limits) int { return l.JSONPathSteps }, (*Request).jsonPathSteps,
		"More than %d JSON path steps",
		"The JSON paths in the request have %d steps together; request-max-json-path-steps allows %d"},
	{func(l Limits) int { return l.LogicDepth }, (*Request).logicDepth,
		"Logic trees nested deeper than %d levels",
		"A logic tree in the request nests %d levels deep; request-max-logic-depth allows %d"},
}

// filterCount counts the filter conditions at every level of the request.
func (r *Request) filterCount() int {
	n := r.Params.filterCount() + len(r.Unparsed)
	for _, p := range r.Embedded {
		n += p.filterCount()
	}
	return n
}

// filterCount counts one level's filters and the leaves of its logic trees.
func (p *Params) filterCount() int {
	n := len(p.Filters)
	for i := range p.Logic {
		n += p.Logic[i].leafCount()
	}
	return n
}

// leafCount counts the filters of a logic tree, nested trees' included.
func (t *LogicTree) leafCount() int {
	n := 0
	for _, c := range t.Conditions {
		switch {
		case c.Filter != nil:
			n++
		case c.Tree != nil:
			n += c.Tree.leafCount()
		}
	}
	return n
}

// selectItemCount counts items, each embed as one plus its own items.
func selectItemCount(items []SelectItem) int {
	n := len(items)
	for _, it := range items {
		if it.Embed != nil {
			n += selectItemCount(it.Embed.Select)
		}
	}
	return n
}

// embedDepth is the deepest nesting of embeds in items; 0 for none.
func embedDepth(items []SelectItem) int {
	deepest := 0
	for _, it := range items {
		if it.Embed != nil {
			deepest = max(deepest, 1+embedDepth(it.Embed.Select))
		}
	}
	return deepest
}

// embedCount counts the embeds in items, nested ones included.
func embedCount(items []SelectItem) int {
	n := 0
	for _, it := range items {
		if it.Embed != nil {
			n += 1 + embedCount(it.Embed.Select)
		}
	}
	return n
}

// jsonPathDepth is the most arrows of any JSON path in the request.
func (r *Request) jsonPathDepth() int {
	deepest := 0
	r.eachPath(func(steps int) { deepest = max(deepest, steps) })
	return deepest
}

// jsonPathSteps is the arrows of all the JSON paths in the request
// together: PostgreSQL evaluates an operator call per arrow, for each row,
// however the arrows are spread over paths.
func (r *Request) jsonPathSteps() int {
	total := 0
	r.eachPath(func(steps int) { total += steps })
	return total
}

// eachPath calls f with the arrows of each field in the request that may
// be a JSON path: in select, filters (logic trees' included), order, and
// the parameters of a function call, which may be filters.
func (r *Request) eachPath(f func(steps int)) {
	selectPaths(r.Select, f)
	r.Params.eachPath(f)
	for _, p := range r.Embedded {
		p.eachPath(f)
	}
	for _, u := range r.Unparsed {
		// A function's parameter is a filter when it names no argument;
		// its key is then a field, possibly with a path.
		if fd, err := (&scanner{src: u.Key}).field(); err == nil {
			f(len(fd.Path))
		}
	}
}

// eachPath calls f with the arrows of each path in one level's filters,
// logic trees and order.
func (p *Params) eachPath(f func(steps int)) {
	for _, fl := range p.Filters {
		f(len(fl.Field.Path))
	}
	for i := range p.Logic {
		p.Logic[i].eachPath(f)
	}
	for _, t := range p.Order {
		f(len(t.Field.Path))
	}
}

// selectPaths calls f with the arrows of each path in items, embedded
// resources' included.
func selectPaths(items []SelectItem, f func(steps int)) {
	for _, it := range items {
		f(len(it.Field.Path))
		if it.Embed != nil {
			selectPaths(it.Embed.Select, f)
		}
	}
}

// eachPath calls f with the arrows of each path in t's filters.
func (t *LogicTree) eachPath(f func(steps int)) {
	for _, c := range t.Conditions {
		switch {
		case c.Filter != nil:
			f(len(c.Filter.Field.Path))
		case c.Tree != nil:
			c.Tree.eachPath(f)
		}
	}
}

// logicDepth is the deepest nesting of the request's logic trees.
func (r *Request) logicDepth() int {
	deepest := r.Params.logicDepth()
	for _, p := range r.Embedded {
		deepest = max(deepest, p.logicDepth())
	}
	return deepest
}

// logicDepth is the deepest nesting of one level's logic trees.
func (p *Params) logicDepth() int {
	deepest := 0
	for i := range p.Logic {
		deepest = max(deepest, p.Logic[i].depth())
	}
	return deepest
}

// depth is 1 for a tree of filters, plus the depth of its deepest subtree.
func (t *LogicTree) depth() int {
	deepest := 0
	for _, c := range t.Conditions {
		if c.Tree != nil {
			deepest = max(deepest, c.Tree.depth())
		}
	}
	return 1 + deepest
}
