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
}

// CheckLimits refuses (400 SVC100) a request larger than l allows. It is
// separate from Parse because the bounds are configuration, which the
// grammar does not know; each count is one walk over what Parse built.
func (r *Request) CheckLimits(l Limits) error {
	if l.Filters > 0 {
		if n := r.filterCount(); n > l.Filters {
			return apierr.ParseError(fmt.Sprintf("More than %d filters", l.Filters),
				fmt.Sprintf("The request has %d filter conditions; request-max-filters allows %d", n, l.Filters))
		}
	}
	if l.SelectItems > 0 {
		if n := selectItemCount(r.Select); n > l.SelectItems {
			return apierr.ParseError(fmt.Sprintf("More than %d select items", l.SelectItems),
				fmt.Sprintf("The select list has %d items, embedded resources' included; request-max-select-items allows %d", n, l.SelectItems))
		}
	}
	if l.EmbedDepth > 0 {
		if n := embedDepth(r.Select); n > l.EmbedDepth {
			return apierr.ParseError(fmt.Sprintf("Embedding deeper than %d levels", l.EmbedDepth),
				fmt.Sprintf("The select list embeds %d levels deep; request-max-embed-depth allows %d", n, l.EmbedDepth))
		}
	}
	return nil
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
