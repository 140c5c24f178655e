package request

// OrderTerm is one entry of the order parameter.
type OrderTerm struct {
	// Relation names a to-one embed (name or alias) whose column Field
	// orders the parent rows: `rel(col)`. Empty for the relation's own
	// columns.
	Relation string
	Field    Field
	Desc     bool
	Nulls    Nulls
}

// Nulls is an explicit nulls placement; the zero value leaves PostgreSQL's default.
type Nulls int

// Explicit nulls placements.
const (
	NullsDefault Nulls = iota
	NullsFirst
	NullsLast
)

// parseOrder reads `col[.asc|.desc][.nullsfirst|.nullslast]`, comma separated;
// col may be `rel(col)` for a to-one embed's column.
func parseOrder(v string) ([]OrderTerm, error) {
	s := &scanner{param: "order", src: v}
	var terms []OrderTerm
	for {
		f, err := s.field()
		if err != nil {
			return nil, err
		}
		t := OrderTerm{Field: f}
		if len(f.Path) == 0 && s.accept("(") {
			t.Relation = f.Name
			if t.Field, err = s.field(); err != nil {
				return nil, err
			}
			if !s.accept(")") {
				return nil, s.fail(`")"`)
			}
		}
		if s.accept(".") {
			switch {
			case s.accept("asc"):
			case s.accept("desc"):
				t.Desc = true
			case s.accept("nullsfirst"):
				t.Nulls = NullsFirst
			case s.accept("nullslast"):
				t.Nulls = NullsLast
			default:
				return nil, s.fail(`"asc", "desc", "nullsfirst" or "nullslast"`)
			}
			if t.Nulls == NullsDefault && s.accept(".") {
				switch {
				case s.accept("nullsfirst"):
					t.Nulls = NullsFirst
				case s.accept("nullslast"):
					t.Nulls = NullsLast
				default:
					return nil, s.fail(`"nullsfirst" or "nullslast"`)
				}
			}
		}
		terms = append(terms, t)
		if s.eof() {
			return terms, nil
		}
		if !s.accept(",") {
			return nil, s.fail(`"," or end of input`)
		}
	}
}
