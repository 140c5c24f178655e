package request

import "fmt"

// LogicTree is an `or=(...)` / `and=(...)` group of conditions, possibly
// negated and nested: `or=(a.eq.1,not.and(b.gt.2,c.is.null))`.
type LogicTree struct {
	Or         bool
	Negate     bool
	Conditions []Condition
}

// Condition is one member of a logic tree: a filter or a nested tree.
type Condition struct {
	Filter *Filter
	Tree   *LogicTree
}

// logicKey reports whether a query parameter is a top-level logic tree and
// which one.
func logicKey(key string) (or, negate, ok bool) {
	switch key {
	case "or":
		return true, false, true
	case "and":
		return false, false, true
	case "not.or":
		return true, true, true
	case "not.and":
		return false, true, true
	}
	return false, false, false
}

// maxLogicDepth bounds how deeply logic trees nest, so a hostile value
// cannot recurse without end. It is the ceiling of request-max-logic-depth,
// which CheckLimits enforces after parsing; this bound guards the parser.
const maxLogicDepth = 1000

// parseLogic reads the value of a top-level `or`/`and` parameter.
func parseLogic(key, value string, or, negate bool) (LogicTree, error) {
	s := &scanner{param: key, src: value}
	t, err := s.logicBody(or, negate, 1)
	if err != nil {
		return LogicTree{}, err
	}
	return t, s.endOfValue()
}

// logicBody reads `(cond,cond,...)`, a tree depth levels deep.
func (s *scanner) logicBody(or, negate bool, depth int) (LogicTree, error) {
	t := LogicTree{Or: or, Negate: negate}
	if !s.accept("(") {
		return LogicTree{}, s.fail(`"("`)
	}
	for {
		c, err := s.condition(depth)
		if err != nil {
			return LogicTree{}, err
		}
		t.Conditions = append(t.Conditions, c)
		switch {
		case s.accept(","):
		case s.accept(")"):
			return t, nil
		default:
			return LogicTree{}, s.fail(`"," or ")"`)
		}
	}
}

// condition reads a nested tree (`[not.]or(...)`, `[not.]and(...)`) or a
// filter `<field>.[not.]<op>.<value>`.
func (s *scanner) condition(depth int) (Condition, error) {
	for _, g := range []struct {
		prefix      string
		or, negated bool
	}{{"not.or(", true, true}, {"not.and(", false, true}, {"or(", true, false}, {"and(", false, false}} {
		if s.startsWith(g.prefix) {
			if depth >= maxLogicDepth {
				return Condition{}, s.fail(fmt.Sprintf("a filter (logic trees nest at most %d levels)", maxLogicDepth))
			}
			s.pos += len(g.prefix) - 1 // leave "(" for logicBody
			t, err := s.logicBody(g.or, g.negated, depth+1)
			if err != nil {
				return Condition{}, err
			}
			return Condition{Tree: &t}, nil
		}
	}
	field, err := s.field()
	if err != nil {
		return Condition{}, err
	}
	if !s.accept(".") {
		return Condition{}, s.fail(`"." after the column name`)
	}
	f, err := s.filterRest(field, true)
	if err != nil {
		return Condition{}, err
	}
	return Condition{Filter: &f}, nil
}
