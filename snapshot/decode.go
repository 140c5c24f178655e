package snapshot

import (
	"fmt"
	"math"
	"unsafe"
)

// Content is encoded by msgpack's reflection (every model struct is tagged
// as_array, so a struct is an array of its fields in declaration order,
// and strings are interned) but decoded by hand, straight from the bytes:
// reflection, and then msgpack.Decoder's byte-at-a-time reads, were most
// of the time a large snapshot takes to load (BenchmarkLoadSnapshot in
// sql/catalog), which servers do at start and on every reload. Each struct checks its field count, so a layout change that
// forgets this file fails loudly instead of shifting values into the wrong
// fields; the codec tests round-trip every field.

// decodeContent reads Content from body, all of which it must use.
func decodeContent(body []byte) (Content, error) {
	var c Content
	r := &reader{buf: body, dict: make([]string, 0, 4096)}
	if r.fields("content", 8) {
		c.Relations = decodeSlice(r, (*Relation).decode)
		c.Relationships = decodeSlice(r, (*Relationship).decode)
		c.Functions = decodeSlice(r, (*Function).decode)
		c.Casts = decodeSlice(r, (*Cast).decode)
		c.Roles = decodeSlice(r, (*Role).decode)
		c.MediaHandlers = decodeSlice(r, (*MediaHandler).decode)
		c.Domains = decodeSlice(r, (*Domain).decode)
		c.Types = decodeSlice(r, (*UserType).decode)
	}
	if r.err == nil && r.pos != len(r.buf) {
		r.fail("%d bytes left over after the content", len(r.buf)-r.pos)
	}
	return c, r.err
}

// msgpack type codes the snapshot layout uses.
const (
	codeNil     = 0xc0
	codeFalse   = 0xc2
	codeTrue    = 0xc3
	codeFloat32 = 0xca
	codeFloat64 = 0xcb
	codeFixExt1 = 0xd4
	codeFixExt2 = 0xd5
	codeFixExt4 = 0xd6
	codeStr8    = 0xd9
	codeStr16   = 0xda
	codeStr32   = 0xdb
	codeArray16 = 0xdc
	codeArray32 = 0xdd
	// internedExt is the ext type msgpack's encoder marks references to
	// interned strings with; strings of internMinLen bytes or more are
	// added to the dictionary, up to internMaxDict entries.
	internedExt   = 0x80
	internMinLen  = 3
	internMaxDict = 1<<16 - 1
)

// reader decodes msgpack from a byte slice with a sticky error, so the
// field lists below read as lists. It never panics on bad input.
type reader struct {
	buf  []byte
	pos  int
	dict []string
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("at byte %d: "+format, append([]any{r.pos}, args...)...)
	}
}

// take returns the next n bytes, or nil after recording truncation.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.pos {
		r.fail("truncated: %d bytes wanted, %d left", n, len(r.buf)-r.pos)
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) code() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// uint reads an n-byte big-endian unsigned integer.
func (r *reader) uint(n int) uint64 {
	var v uint64
	for _, b := range r.take(n) {
		v = v<<8 | uint64(b)
	}
	return v
}

// fields reads an array header and checks it holds want fields of what.
func (r *reader) fields(what string, want int) bool {
	n := r.length()
	if r.err != nil {
		return false
	}
	if n != want {
		r.fail("%s has %d fields, this build reads %d", what, n, want)
		return false
	}
	return true
}

// null consumes a nil if one comes next.
func (r *reader) null() bool {
	if r.err != nil {
		return true
	}
	if r.pos < len(r.buf) && r.buf[r.pos] == codeNil {
		r.pos++
		return true
	}
	return false
}

// length reads an array header: -1 for nil. Every element takes at least
// a byte, so a length beyond the bytes left is damage, refused before
// anything is allocated for it.
func (r *reader) length() int {
	c := r.code()
	n := -1
	switch {
	case r.err != nil:
		return -1
	case c == codeNil:
		return -1
	case c >= 0x90 && c <= 0x9f:
		n = int(c & 0x0f)
	case c == codeArray16:
		n = int(r.uint(2))
	case c == codeArray32:
		n = int(r.uint(4))
	default:
		r.fail("want an array, found code 0x%02x", c)
		return -1
	}
	if left := len(r.buf) - r.pos; n > left {
		r.fail("an array of %d elements cannot fit in the %d bytes left", n, left)
		return -1
	}
	return n
}

func (r *reader) str() string {
	c := r.code()
	n := -1
	switch {
	case r.err != nil:
		return ""
	case c == codeNil:
		return ""
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == codeStr8:
		n = int(r.uint(1))
	case c == codeStr16:
		n = int(r.uint(2))
	case c == codeStr32:
		n = int(r.uint(4))
	case c == codeFixExt1 || c == codeFixExt2 || c == codeFixExt4:
		size := 1 << (c - codeFixExt1) // fixext1, 2, 4 are consecutive codes
		if t := r.code(); t != internedExt && r.err == nil {
			r.fail("want an interned string, found ext type %d", int8(t))
		}
		idx := r.uint(size)
		if r.err == nil && idx >= uint64(len(r.dict)) {
			r.fail("interned string %d is not defined", idx)
		}
		if r.err != nil {
			return ""
		}
		return r.dict[idx]
	default:
		r.fail("want a string, found code 0x%02x", c)
		return ""
	}
	b := r.take(n)
	if r.err != nil || n == 0 {
		return ""
	}
	// The string shares the snapshot file's bytes instead of copying them:
	// one allocation for the file rather than one per name, and decode
	// callers own data and never change it (see decode in codec.go).
	s := unsafe.String(&b[0], n)
	if n >= internMinLen && len(r.dict) < internMaxDict {
		r.dict = append(r.dict, s)
	}
	return s
}

func (r *reader) boolean() bool {
	switch c := r.code(); {
	case r.err != nil:
		return false
	case c == codeTrue:
		return true
	case c == codeFalse:
		return false
	default:
		r.fail("want a bool, found code 0x%02x", c)
		return false
	}
}

func (r *reader) integer() int {
	c := r.code()
	switch {
	case r.err != nil:
		return 0
	case c <= 0x7f:
		return int(c)
	case c >= 0xe0:
		return int(int8(c))
	case c >= 0xcc && c <= 0xcf: // uint8 .. uint64
		return int(r.uint(1 << (c - 0xcc)))
	case c >= 0xd0 && c <= 0xd3: // int8 .. int64
		size := 1 << (c - 0xd0)
		v := r.uint(size)
		shift := 64 - 8*size
		return int(int64(v<<shift) >> shift)
	}
	r.fail("want an integer, found code 0x%02x", c)
	return 0
}

func (r *reader) float() float64 {
	switch c := r.code(); {
	case r.err != nil:
		return 0
	case c == codeFloat64:
		return math.Float64frombits(r.uint(8))
	case c == codeFloat32:
		return float64(math.Float32frombits(uint32(r.uint(4))))
	default:
		r.pos--
		return float64(r.integer())
	}
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
	if !r.fields("relation", 13) {
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
	x.ComputedFields = decodeSlice(r, (*ComputedField).decode)
}

func (x *ComputedField) decode(r *reader) {
	if r.fields("computed field", 3) {
		x.Function.decode(r)
		x.Type, x.BaseType = r.str(), r.str()
	}
}

func (x *UniqueKey) decode(r *reader) {
	if r.fields("unique key", 2) {
		x.Name, x.Columns = r.str(), r.strs()
	}
}

func (x *Column) decode(r *reader) {
	if !r.fields("column", 12) {
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
	x.ReadOnly = r.boolean()
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
	if !r.fields("relationship", 9) {
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
	x.Referencing = r.boolean()
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
	if !r.fields("function", 14) {
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
	if !r.null() {
		x.Media = new(MediaDomain)
		x.Media.decode(r)
	}
}

func (x *MediaDomain) decode(r *reader) {
	if r.fields("media domain", 2) {
		x.Type = r.str()
		x.Send.decode(r)
	}
}

func (x *MediaHandler) decode(r *reader) {
	if r.fields("media handler", 3) {
		x.Media.decode(r)
		x.Aggregate.decode(r)
		x.Relation.decode(r)
	}
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

func (x *Domain) decode(r *reader) {
	if !r.fields("domain", 8) {
		return
	}
	x.Schema, x.Name = r.str(), r.str()
	x.Type, x.BaseType = r.str(), r.str()
	x.NotNull, x.Nondeterministic = r.boolean(), r.boolean()
	x.Description = r.str()
	x.Checks = decodeSlice(r, (*DomainCheck).decode)
}

func (x *DomainCheck) decode(r *reader) {
	if r.fields("domain check", 3) {
		x.Name, x.Expr = r.str(), r.str()
		x.Validated = r.boolean()
	}
}

func (x *UserType) decode(r *reader) {
	if r.fields("type", 4) {
		x.Schema, x.Name = r.str(), r.str()
		x.Labels = r.strs()
		x.Attributes = decodeSlice(r, (*Attribute).decode)
	}
}

func (x *Attribute) decode(r *reader) {
	if r.fields("attribute", 2) {
		x.Name, x.Type = r.str(), r.str()
	}
}
