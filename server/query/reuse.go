package query

import "github.com/svc-dev/svc/server/request"

// Shape returns s with the values it took from its request's query
// parameters removed, fit to keep for other requests of the same shape (see
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
	return Statement{SQL: s.SQL, Args: args, Sources: s.Sources, Expansion: s.Expansion}, true
}

// Bind returns the statement a shape (see Shape) makes for the request t
// is the template of. It reports false for a value with no slot, or a
// slot that holds no parameter or no filter where an operand is wanted:
// none comes from Shape and a template of the same shape.
func (s Statement) Bind(t *request.Template) (Statement, bool) {
	args := make([]any, len(s.Args))
	for i, src := range s.Sources {
		switch {
		case src.Slot == 0:
			args[i] = s.Args[i]
		case src.Slot < 0 || src.Slot > len(t.Filters):
			return Statement{}, false
		case src.Part == WholeValue:
			v, ok := t.Value(src.Slot)
			if !ok {
				return Statement{}, false
			}
			args[i] = v
		case t.Filters[src.Slot-1].Op == "":
			return Statement{}, false
		default:
			args[i] = OperandArg(t.Filters[src.Slot-1], src.Part)
		}
	}
	return Statement{SQL: s.SQL, Args: args, Sources: s.Sources, Expansion: s.Expansion}, true
}
