package request

import (
	"fmt"
	"strings"
)

// SelectItem is one entry of the select parameter.
type SelectItem struct {
	// Star selects every column; the other fields are then empty.
	Star  bool
	Field Field
	Alias string
	// Cast is a type name the value is cast to in the output; with an
	// aggregate it is the input cast, applied before aggregating.
	Cast string
	// Aggregate is the aggregate function applied to Field: avg, count,
	// max, min or sum; "" for none. `count()` has an empty Field.
	Aggregate string
	// AggregateCast is a type name the aggregate's result is cast to.
	AggregateCast string
	// Embed is set when the item embeds a related resource; Field is then
	// unused and Alias names the output key.
	Embed *Embed
}

// Embed is an embedded resource in select: `[alias:][...]name[!hint][!inner|!left](items)`.
type Embed struct {
	// Name is what the embed targets: a related relation, a computed
	// relationship's function, a foreign key column or constraint.
	Name string
	// Hint picks one relationship when several match.
	Hint string
	// Join is how rows without a related row are treated.
	Join Join
	// Spread lifts a to-one embed's columns into the parent.
	Spread bool
	// Select is the embed's own select list; empty for `name()`.
	Select []SelectItem
}

// Join says whether parents without a related row are kept.
type Join int

// JoinDefault keeps them (a left join); JoinInner drops them.
const (
	JoinDefault Join = iota
	JoinInner
	JoinLeft
)

// parseSelect reads the select parameter: `*`, `col`, `alias:col`,
// `col::type`, aggregates (`col.sum()`, `count()`) and embeds, comma
// separated.
func parseSelect(v string) ([]SelectItem, error) {
	s := &scanner{param: "select", src: v}
	items, err := s.selectList(0)
	if err != nil {
		return nil, err
	}
	if !s.eof() {
		return nil, s.fail(`"," or end of input`)
	}
	return items, nil
}

// maxEmbedDepth bounds nesting so a hostile select cannot recurse without
// end. It is the ceiling of request-max-embed-depth, which CheckLimits
// enforces after parsing; this bound only guards the parser's stack.
const maxEmbedDepth = 64

// selectList reads items up to the end of input or a closing parenthesis,
// which it leaves for the caller.
func (s *scanner) selectList(depth int) ([]SelectItem, error) {
	var items []SelectItem
	for {
		item, err := s.selectItem(depth)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		if !s.accept(",") {
			return items, nil
		}
	}
}

func (s *scanner) selectItem(depth int) (SelectItem, error) {
	if s.accept("*") {
		return SelectItem{Star: true}, nil
	}
	if s.accept("...") {
		e, err := s.embed("", depth)
		if err != nil {
			return SelectItem{}, err
		}
		e.Spread = true
		return SelectItem{Embed: e}, nil
	}
	first, err := s.field()
	if err != nil {
		return SelectItem{}, err
	}
	item := SelectItem{Field: first}
	// "a:b" renames b to a; "a::t" is a cast, handled below.
	if len(first.Path) == 0 && !s.startsWith("::") && s.accept(":") {
		item.Alias = first.Name
		if item.Field, err = s.field(); err != nil {
			return SelectItem{}, err
		}
	}
	// "count()" counts rows; it is never an embed of a relation "count".
	if len(item.Field.Path) == 0 && item.Field.Name == "count" && s.accept("()") {
		item.Field, item.Aggregate = Field{}, "count"
		return s.aggregateCast(item)
	}
	if len(item.Field.Path) == 0 && (s.peek() == '(' || s.peek() == '!') {
		item.Embed, err = s.embed(item.Field.Name, depth)
		item.Field = Field{}
		return item, err
	}
	if s.accept("::") {
		if item.Cast, err = s.typeName(); err != nil {
			return SelectItem{}, err
		}
	}
	if s.accept(".") {
		if item.Aggregate = s.aggregateName(); item.Aggregate == "" {
			return SelectItem{}, s.fail(`an aggregate function "avg()", "count()", "max()", "min()" or "sum()"`)
		}
		return s.aggregateCast(item)
	}
	if item.Alias == "" && item.Field.OutputName() == "" {
		// `meta->""` would come out under an empty name, which SQL
		// cannot write.
		return SelectItem{}, s.fail(`an alias ("name:") for a JSON path ending in an empty key`)
	}
	return item, nil
}

// aggregates are the aggregate functions select may apply to a column.
var aggregates = []string{"avg", "count", "max", "min", "sum"}

// aggregateName reads `<agg>()` and returns the function's name, or ""
// (consuming nothing) when the input is not one.
func (s *scanner) aggregateName() string {
	for _, name := range aggregates {
		if s.startsWith(name + "()") {
			s.pos += len(name) + 2
			return name
		}
	}
	return ""
}

// aggregateAhead reports whether the input continues with `.<agg>()`, which
// ends a cast's type name rather than qualifying it.
func (s *scanner) aggregateAhead() bool {
	if s.peek() != '.' {
		return false
	}
	for _, name := range aggregates {
		if strings.HasPrefix(s.src[s.pos+1:], name+"()") {
			return true
		}
	}
	return false
}

// aggregateCast reads the optional `::type` after an aggregate.
func (s *scanner) aggregateCast(item SelectItem) (SelectItem, error) {
	if s.accept("::") {
		var err error
		if item.AggregateCast, err = s.typeName(); err != nil {
			return SelectItem{}, err
		}
	}
	return item, nil
}

// embed reads the rest of an embed after its name (which it reads itself
// when name is ""): hints, join type and the parenthesised select list.
func (s *scanner) embed(name string, depth int) (*Embed, error) {
	if depth >= maxEmbedDepth {
		return nil, s.fail(fmt.Sprintf("at most %d levels of embedding", maxEmbedDepth))
	}
	e := &Embed{Name: name}
	if name == "" {
		var err error
		if e.Name, err = s.name(); err != nil {
			return nil, err
		}
	}
	for s.accept("!") {
		word, err := s.name()
		if err != nil {
			return nil, err
		}
		switch {
		case word == "inner" && e.Join == JoinDefault:
			e.Join = JoinInner
		case word == "left" && e.Join == JoinDefault:
			e.Join = JoinLeft
		case e.Hint == "" && e.Join == JoinDefault:
			e.Hint = word
		default:
			return nil, s.fail(`"("`)
		}
	}
	if !s.accept("(") {
		return nil, s.fail(`"(" or "!"`)
	}
	if s.accept(")") {
		return e, nil
	}
	var err error
	if e.Select, err = s.selectList(depth + 1); err != nil {
		return nil, err
	}
	if !s.accept(")") {
		return nil, s.fail(`"," or ")"`)
	}
	return e, nil
}
