package query

import "github.com/svc-dev/svc/server/request"

// Shape returns s with the values it took from its request's filters
// removed, fit to keep for other requests of the same shape (see
// request.Template), and whether s can serve them at all: not when it
// binds a request value it cannot trace to a query parameter.
func (s Statement) Shape() (Statement, bool) {
	if len(s.Sources) != len(s.Args) {
		return Statement{}, false
	}
	args := make([]any, len(s.Args))
	for i, src := range s.Sources {
		switch {
		case src.Slot < 0:
			return Statement{}, false
		case src.Slot == 0:
			args[i] = s.Args[i]
		}
	}
	return Statement{SQL: s.SQL, Args: args, Sources: s.Sources}, true
}

// Bind returns the statement a shape (see Shape) makes for a request
// whose filters, by slot, are filters (request.Template.Filters). It
// reports false for an operand with no slot, or a slot that holds no
// filter: neither comes from Shape and a template of the same shape.
func (s Statement) Bind(filters []request.Filter) (Statement, bool) {
	args := make([]any, len(s.Args))
	for i, src := range s.Sources {
		switch {
		case src.Slot == 0:
			args[i] = s.Args[i]
		case src.Slot < 0 || src.Slot > len(filters) || filters[src.Slot-1].Op == "":
			return Statement{}, false
		default:
			args[i] = OperandArg(filters[src.Slot-1], src.Part)
		}
	}
	return Statement{SQL: s.SQL, Args: args, Sources: s.Sources}, true
}
