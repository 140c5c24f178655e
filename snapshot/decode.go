package snapshot

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Content is encoded by msgpack's reflection (every model struct is tagged
// as_array, so a struct is an array of its fields in declaration order) but
// decoded by hand, field by field in that same order: reflection spent
// ~60 ms per load of a 2,500-relation snapshot, and servers load snapshots
// at start and on every reload. Each struct checks its field count, so a
// layout change that forgets this file fails loudly rather than shifting
// values into the wrong fields; the codec tests round-trip every field.

// DecodeMsgpack implements msgpack.CustomDecoder.
func (c *Content) DecodeMsgpack(d *msgpack.Decoder) error {
	r := &reader{d: d}
	if r.fields("content", 5) {
		c.Relations = decodeSlice(r, (*Relation).decode)
		c.Relationships = decodeSlice(r, (*Relationship).decode)
		c.Functions = decodeSlice(r, (*Function).decode)
		c.Casts = decodeSlice(r, (*Cast).decode)
		c.Roles = decodeSlice(r, (*Role).decode)
	}
	return r.err
}

// reader wraps the decoder with a sticky error, so the field lists below
// read as lists.
type reader struct {
	d   *msgpack.Decoder
	err error
}

// fields reads an array header and checks it holds want fields of what.
func (r *reader) fields(what string, want int) bool {
	if r.err != nil {
		return false
	}
	n, err := r.d.DecodeArrayLen()
	if err != nil {
		r.err = err
		return false
	}
	if n != want {
		r.err = fmt.Errorf("%s has %d fields, this build reads %d", what, n, want)
		return false
	}
	return true
}

// null consumes a nil if one comes next.
func (r *reader) null() bool {
	if r.err != nil {
		return true
	}
	c, err := r.d.PeekCode()
	if err != nil {
		r.err = err
		return true
	}
	if c != msgpcode.Nil {
		return false
	}
	r.err = r.d.DecodeNil()
	return true
}

func (r *reader) str() string {
	if r.err != nil {
		return ""
	}
	s, err := r.d.DecodeString()
	r.err = err
	return s
}

func (r *reader) boolean() bool {
	if r.err != nil {
		return false
	}
	b, err := r.d.DecodeBool()
	r.err = err
	return b
}

func (r *reader) integer() int {
	if r.err != nil {
		return 0
	}
	n, err := r.d.DecodeInt()
	r.err = err
	return n
}

func (r *reader) float() float64 {
	if r.err != nil {
		return 0
	}
	f, err := r.d.DecodeFloat64()
	r.err = err
	return f
}

// length reads a slice header: -1 for nil.
func (r *reader) length() int {
	if r.err != nil {
		return -1
	}
	n, err := r.d.DecodeArrayLen()
	r.err = err
	if err != nil {
		return -1
	}
	return n
}

func (r *reader) strs() []string {
	n := r.length()
	if n < 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// decodeSlice reads a slice of T with decode for each element; nil stays nil.
func decodeSlice[T any](r *reader, decode func(*T, *reader)) []T {
	n := r.length()
	if n < 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		if r.err != nil {
			return nil
		}
		decode(&out[i], r)
	}
	return out
}

func (q *QualifiedName) decode(r *reader) {
	if r.fields("qualified name", 2) {
		q.Schema, q.Name = r.str(), r.str()
	}
}

func (x *Relation) decode(r *reader) {
	if !r.fields("relation", 12) {
		return
	}
	x.Schema, x.Name = r.str(), r.str()
	x.Kind = RelationKind(r.str())
	x.Description, x.Owner = r.str(), r.str()
	x.Columns = decodeSlice(r, (*Column).decode)
	x.PrimaryKey = r.strs()
	x.UniqueKeys = decodeSlice(r, (*UniqueKey).decode)
	x.Insertable, x.Updatable, x.Deletable = r.boolean(), r.boolean(), r.boolean()
	x.Grants = decodeSlice(r, (*Grant).decode)
}

func (x *UniqueKey) decode(r *reader) {
	if r.fields("unique key", 2) {
		x.Name, x.Columns = r.str(), r.strs()
	}
}

func (x *Column) decode(r *reader) {
	if !r.fields("column", 11) {
		return
	}
	x.Name, x.Type, x.BaseType, x.TypeSchema = r.str(), r.str(), r.str(), r.str()
	x.Nullable = r.boolean()
	if !r.null() {
		def := r.str()
		x.Default = &def
	}
	x.MaxLength = r.integer()
	x.EnumValues = r.strs()
	x.Description = r.str()
	x.Generated = r.boolean()
	x.Grants = decodeSlice(r, (*Grant).decode)
}

func (x *Grant) decode(r *reader) {
	if r.fields("grant", 2) {
		x.Grantee, x.Privileges = r.str(), r.strs()
	}
}

func (x *ColumnPair) decode(r *reader) {
	if r.fields("column pair", 2) {
		x.Column, x.ForeignColumn = r.str(), r.str()
	}
}

func (x *Relationship) decode(r *reader) {
	if !r.fields("relationship", 8) {
		return
	}
	x.Table.decode(r)
	x.ForeignTable.decode(r)
	x.Cardinality = Cardinality(r.str())
	x.Constraint = r.str()
	x.Columns = decodeSlice(r, (*ColumnPair).decode)
	if !r.null() {
		x.Junction = new(Junction)
		x.Junction.decode(r)
	}
	if !r.null() {
		x.Function = new(QualifiedName)
		x.Function.decode(r)
	}
	x.IsSelf = r.boolean()
}

func (x *Junction) decode(r *reader) {
	if !r.fields("junction", 5) {
		return
	}
	x.Table.decode(r)
	x.SourceConstraint = r.str()
	x.SourceColumns = decodeSlice(r, (*ColumnPair).decode)
	x.TargetConstraint = r.str()
	x.TargetColumns = decodeSlice(r, (*ColumnPair).decode)
}

func (x *Argument) decode(r *reader) {
	if r.fields("argument", 4) {
		x.Name, x.Type = r.str(), r.str()
		x.Mode = ArgMode(r.str())
		x.HasDefault = r.boolean()
	}
}

func (x *Function) decode(r *reader) {
	if !r.fields("function", 13) {
		return
	}
	x.Schema, x.Name = r.str(), r.str()
	x.Description = r.str()
	x.Arguments = decodeSlice(r, (*Argument).decode)
	x.Variadic = r.boolean()
	x.ReturnType.decode(r)
	x.Returns = ReturnShape(r.str())
	x.ReturnsRecord = r.boolean()
	x.Volatility = Volatility(r.str())
	x.Rows = r.float()
	x.Owner = r.str()
	x.Grants = decodeSlice(r, (*Grant).decode)
	x.Settings = r.strs()
}

func (x *Cast) decode(r *reader) {
	if r.fields("cast", 3) {
		x.Source, x.Target = r.str(), r.str()
		x.Function.decode(r)
	}
}

func (x *Role) decode(r *reader) {
	if r.fields("role", 5) {
		x.Name = r.str()
		x.MemberOf = r.strs()
		x.Inherit, x.Superuser = r.boolean(), r.boolean()
		x.Settings = r.strs()
	}
}
