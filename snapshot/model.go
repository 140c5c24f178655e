package snapshot

// QualifiedName names a schema object. Relations and functions are looked up
// by it, so it is a comparable value type.
type QualifiedName struct {
	_msgpack struct{} `msgpack:",as_array"`
	Schema   string   `msgpack:"schema" json:"schema"`
	Name     string   `msgpack:"name" json:"name"`
}

// String renders the name as schema.name, unquoted, for messages and maps.
func (q QualifiedName) String() string { return q.Schema + "." + q.Name }

// Content is everything the server knows about the database schema. It is
// the part the fingerprint covers: two dumps of an unchanged schema produce
// byte-identical Content because the introspection orders every list.
type Content struct {
	_msgpack      struct{}       `msgpack:",as_array"`
	Relations     []Relation     `msgpack:"relations" json:"relations"`
	Relationships []Relationship `msgpack:"relationships" json:"relationships"`
	Functions     []Function     `msgpack:"functions" json:"functions"`
	Casts         []Cast         `msgpack:"casts" json:"casts"`
	Roles         []Role         `msgpack:"roles" json:"roles"`
	// MediaHandlers are the aggregates that render rows for a media type.
	MediaHandlers []MediaHandler `msgpack:"media_handlers" json:"media_handlers"`
	// Domains are the domains exposed columns, computed fields and
	// functions' arguments and results are of (their elements', for
	// arrays), and the domains those stand on, by name.
	Domains []Domain `msgpack:"domains" json:"domains"`
	// Types are the enums and composite types (not relations' row types)
	// of the exposed schemas, by name, which typed clients name values
	// by (svc-introspect types); serving does not read them.
	Types []UserType `msgpack:"types" json:"types"`
}

// RelationKind says what sort of relation a route is backed by.
type RelationKind string

// The relation kinds SVC exposes. Partitions are not exposed on their own;
// their partitioned parent is.
const (
	KindTable            RelationKind = "table"
	KindView             RelationKind = "view"
	KindMaterializedView RelationKind = "materialized_view"
	KindForeignTable     RelationKind = "foreign_table"
	KindPartitionedTable RelationKind = "partitioned_table"
)

// DefinedByQuery reports whether relations of kind k are defined by a
// query (a view or a materialized view), whose columns are traced to
// base tables.
func (k RelationKind) DefinedByQuery() bool { return k == KindView || k == KindMaterializedView }

// Relation is a table, view, materialized view, foreign table or partitioned
// table in an exposed schema. Relations elsewhere (say a base table in a
// private schema behind an exposed view) are not stored: introspection
// traces through them and keeps only what exposed relations need.
type Relation struct {
	_msgpack      struct{} `msgpack:",as_array"`
	QualifiedName `msgpack:",inline" json:",inline"`
	Kind          RelationKind `msgpack:"kind" json:"kind"`
	Description   string       `msgpack:"description,omitempty" json:"description,omitempty"`
	Owner         string       `msgpack:"owner" json:"owner"`
	Columns       []Column     `msgpack:"columns" json:"columns"`
	PrimaryKey    []string     `msgpack:"primary_key" json:"primary_key"`
	UniqueKeys    []UniqueKey  `msgpack:"unique_keys" json:"unique_keys"`
	// Insertable, Updatable and Deletable follow pg_relation_is_updatable, so
	// a view that cannot take writes does not advertise them.
	Insertable bool    `msgpack:"insertable" json:"insertable"`
	Updatable  bool    `msgpack:"updatable" json:"updatable"`
	Deletable  bool    `msgpack:"deletable" json:"deletable"`
	Grants     []Grant `msgpack:"grants" json:"grants"`
	// ComputedFields are the functions that read as virtual columns of
	// the relation, sorted by name. A column of the same name hides one,
	// as in PostgreSQL, so none is listed under a column's name.
	ComputedFields []ComputedField `msgpack:"computed_fields,omitempty" json:"computed_fields,omitempty"`
}

// ComputedField is a function taking one row of a relation and returning
// one value (a scalar, an array or a composite; never a set, as sets embed
// as computed relationships). Callers select, filter and order by it under
// the function's name as if it were a column; `*` leaves it out. It is
// found where PostgREST's search path finds it: in the relation's schema,
// else in db-extra-search-path, in that order.
type ComputedField struct {
	_msgpack struct{}      `msgpack:",as_array"`
	Function QualifiedName `msgpack:"function" json:"function"`
	// Type is the result type as format_type prints it; BaseType resolves
	// domains, as Column's does.
	Type     string `msgpack:"type" json:"type"`
	BaseType string `msgpack:"base_type" json:"base_type"`
}

// Name is the name callers use for the field: its function's.
func (f *ComputedField) Name() string { return f.Function.Name }

// UniqueKey is a primary key or unique constraint (or unique index without
// predicate) of a relation.
type UniqueKey struct {
	_msgpack struct{} `msgpack:",as_array"`
	Name     string   `msgpack:"name" json:"name"`
	Columns  []string `msgpack:"columns" json:"columns"`
}

// Column is a column of a relation in attnum order.
type Column struct {
	_msgpack struct{} `msgpack:",as_array"`
	Name     string   `msgpack:"name" json:"name"`
	// Type is the type as format_type prints it ("character varying(10)",
	// "integer[]"); BaseType resolves domains to the type they stand on.
	Type       string `msgpack:"type" json:"type"`
	BaseType   string `msgpack:"base_type" json:"base_type"`
	TypeSchema string `msgpack:"type_schema" json:"type_schema"`
	Nullable   bool   `msgpack:"nullable" json:"nullable"`
	// Default is the expression an insert omitting the column stores: the
	// column's own default, the next value of its identity sequence
	// (GENERATED BY DEFAULT), or its domain's default; nil for none.
	Default     *string  `msgpack:"default" json:"default"`
	MaxLength   int      `msgpack:"max_length,omitempty" json:"max_length,omitempty"`
	EnumValues  []string `msgpack:"enum_values,omitempty" json:"enum_values,omitempty"`
	Description string   `msgpack:"description,omitempty" json:"description,omitempty"`
	// Generated is true for identity-always and generated columns, which
	// cannot take a value on insert.
	Generated bool `msgpack:"generated,omitempty" json:"generated,omitempty"`
	// ReadOnly is true for a column no write reaches of a view that
	// takes inserts or updates (an expression of an auto-updatable view
	// with no INSTEAD OF trigger or rule): PostgreSQL refuses a value for
	// it, and typed clients type it so.
	ReadOnly bool    `msgpack:"read_only,omitempty" json:"read_only,omitempty"`
	Grants   []Grant `msgpack:"grants,omitempty" json:"grants,omitempty"`
}

// Privilege names as PostgreSQL's aclexplode reports them.
const (
	PrivSelect  = "SELECT"
	PrivInsert  = "INSERT"
	PrivUpdate  = "UPDATE"
	PrivDelete  = "DELETE"
	PrivExecute = "EXECUTE"
)

// Grant is one entry of an object's access list. Grantee "PUBLIC" stands for
// every role. The snapshot keeps the raw access lists plus role membership,
// so effective privileges of any role are derived at load time, without
// asking the database.
type Grant struct {
	_msgpack   struct{} `msgpack:",as_array"`
	Grantee    string   `msgpack:"grantee" json:"grantee"`
	Privileges []string `msgpack:"privileges" json:"privileges"`
}

// Cardinality of a relationship as seen from its Table side. The values are
// the words SVC201 details show callers.
type Cardinality string

// The relationship cardinalities SPEC.md names.
const (
	ManyToOne  Cardinality = "many-to-one"
	OneToMany  Cardinality = "one-to-many"
	OneToOne   Cardinality = "one-to-one"
	ManyToMany Cardinality = "many-to-many"
)

// ColumnPair joins a column of the relationship's Table (Column) to a column
// of the other side (ForeignColumn).
type ColumnPair struct {
	_msgpack      struct{} `msgpack:",as_array"`
	Column        string   `msgpack:"column" json:"column"`
	ForeignColumn string   `msgpack:"foreign_column" json:"foreign_column"`
}

// Relationship is one way to embed ForeignTable inside rows of Table. Every
// foreign key yields two (one from each side); views yield copies traced
// through to their base tables. Introspection infers all of them once, so the
// server never reasons about foreign keys while serving.
type Relationship struct {
	_msgpack     struct{}      `msgpack:",as_array"`
	Table        QualifiedName `msgpack:"table" json:"table"`
	ForeignTable QualifiedName `msgpack:"foreign_table" json:"foreign_table"`
	Cardinality  Cardinality   `msgpack:"cardinality" json:"cardinality"`
	// Constraint is the foreign key's name (for many-to-many, the name of the
	// junction's key towards ForeignTable); computed relationships use the
	// function name.
	Constraint string       `msgpack:"constraint" json:"constraint"`
	Columns    []ColumnPair `msgpack:"columns,omitempty" json:"columns,omitempty"`
	Junction   *Junction    `msgpack:"junction,omitempty" json:"junction,omitempty"`
	// Function is set for computed relationships: a function taking a row of
	// Table and returning SETOF ForeignTable.
	Function *QualifiedName `msgpack:"function,omitempty" json:"function,omitempty"`
	IsSelf   bool           `msgpack:"is_self,omitempty" json:"is_self,omitempty"`
	// Referencing is true when Table holds the foreign key: every
	// many-to-one relationship, and of a one-to-one one's two directions
	// the one from the referencing side, which Cardinality does not tell
	// apart. Typed clients list a key on that side only.
	Referencing bool `msgpack:"referencing,omitempty" json:"referencing,omitempty"`
}

// Computed reports whether the relationship comes from a function rather
// than from a foreign key.
func (r *Relationship) Computed() bool { return r.Function != nil }

// ToOne reports whether an embed along r yields an object rather than an array.
func (r *Relationship) ToOne() bool { return r.Cardinality == ManyToOne || r.Cardinality == OneToOne }

// Junction is the middle table of a many-to-many relationship.
type Junction struct {
	_msgpack struct{}      `msgpack:",as_array"`
	Table    QualifiedName `msgpack:"table" json:"table"`
	// SourceConstraint's columns join the junction (Column) to the
	// relationship's Table (ForeignColumn); TargetConstraint's to ForeignTable.
	SourceConstraint string       `msgpack:"source_constraint" json:"source_constraint"`
	SourceColumns    []ColumnPair `msgpack:"source_columns" json:"source_columns"`
	TargetConstraint string       `msgpack:"target_constraint" json:"target_constraint"`
	TargetColumns    []ColumnPair `msgpack:"target_columns" json:"target_columns"`
}

// Volatility of a function; GET may only call functions that do not write.
type Volatility string

// PostgreSQL's three volatility classes.
const (
	Immutable Volatility = "immutable"
	Stable    Volatility = "stable"
	Volatile  Volatility = "volatile"
)

// ArgMode is a function argument's mode as pg_proc.proargmodes spells it.
type ArgMode string

// The argument modes. Only in, inout and variadic arguments are passed by callers.
const (
	ArgIn       ArgMode = "in"
	ArgOut      ArgMode = "out"
	ArgInOut    ArgMode = "inout"
	ArgVariadic ArgMode = "variadic"
	ArgTable    ArgMode = "table"
)

// Argument is one argument of a function, in declaration order.
type Argument struct {
	_msgpack   struct{} `msgpack:",as_array"`
	Name       string   `msgpack:"name" json:"name"`
	Type       string   `msgpack:"type" json:"type"`
	Mode       ArgMode  `msgpack:"mode" json:"mode"`
	HasDefault bool     `msgpack:"has_default,omitempty" json:"has_default,omitempty"`
}

// ReturnShape says how a function's result maps to a response.
type ReturnShape string

// The return shapes: a bare value, one row, a set of rows or of values, or nothing.
const (
	ReturnsScalar         ReturnShape = "scalar"
	ReturnsComposite      ReturnShape = "composite"
	ReturnsSetOfComposite ReturnShape = "setof_composite"
	ReturnsSetOfScalar    ReturnShape = "setof_scalar"
	ReturnsVoid           ReturnShape = "void"
)

// Function is a function (not a procedure) in an exposed schema.
type Function struct {
	_msgpack      struct{} `msgpack:",as_array"`
	QualifiedName `msgpack:",inline" json:",inline"`
	Description   string     `msgpack:"description,omitempty" json:"description,omitempty"`
	Arguments     []Argument `msgpack:"arguments" json:"arguments"`
	Variadic      bool       `msgpack:"variadic,omitempty" json:"variadic,omitempty"`
	// ReturnType is the qualified name of the result type; for a composite
	// it names the relation (or composite type) rows have.
	ReturnType QualifiedName `msgpack:"return_type" json:"return_type"`
	Returns    ReturnShape   `msgpack:"returns" json:"returns"`
	// ReturnsRecord is true for "returns record" / "setof record", whose
	// columns are only known at call time.
	ReturnsRecord bool       `msgpack:"returns_record,omitempty" json:"returns_record,omitempty"`
	Volatility    Volatility `msgpack:"volatility" json:"volatility"`
	// Rows is the planner's row estimate (prorows); a computed relationship
	// with Rows == 1 is to-one.
	Rows   float64 `msgpack:"rows" json:"rows"`
	Owner  string  `msgpack:"owner" json:"owner"`
	Grants []Grant `msgpack:"grants" json:"grants"`
	// Settings are the function's SET clauses (proconfig), "name=value".
	Settings []string `msgpack:"settings,omitempty" json:"settings,omitempty"`
	// Media is set when the function returns, not as a set, a domain
	// named after a media type: the function is that media type's
	// handler, and its value is the body.
	Media *MediaDomain `msgpack:"media,omitempty" json:"media,omitempty"`
}

// Cast is an implicit, function-backed cast between a domain and json or
// text: a domain representation (PostgREST's name). A cast from the domain
// to json formats the domain's values in responses; one from json to the
// domain reads them from request bodies, one from text from filter values
// in the URL. Other casts change nothing in the API and are not kept.
type Cast struct {
	_msgpack struct{}      `msgpack:",as_array"`
	Source   string        `msgpack:"source" json:"source"`
	Target   string        `msgpack:"target" json:"target"`
	Function QualifiedName `msgpack:"function" json:"function"`
}

// Role is a database role with what request handling needs of it: the roles
// it is a member of (for effective privileges) and its per-role settings
// (ALTER ROLE ... SET), applied to its requests without a catalog query.
type Role struct {
	_msgpack struct{} `msgpack:",as_array"`
	Name     string   `msgpack:"name" json:"name"`
	MemberOf []string `msgpack:"member_of,omitempty" json:"member_of,omitempty"`
	// Inherit is rolinherit: whether privileges of MemberOf roles apply
	// without SET ROLE.
	Inherit   bool     `msgpack:"inherit" json:"inherit"`
	Superuser bool     `msgpack:"superuser,omitempty" json:"superuser,omitempty"`
	Settings  []string `msgpack:"settings,omitempty" json:"settings,omitempty"`
}

// MediaDomain is a domain named after a media type ("text/html",
// "application/vnd.twkb", "*/*"): a value of it is a response body of
// that media type, sent as PostgreSQL's binary form of the value.
type MediaDomain struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Type is the media type, lowercased, as the domain is named.
	Type string `msgpack:"type" json:"type"`
	// Send is the send function of the domain's base type (pg_type.typsend):
	// it turns a value into the bytes of the body.
	Send QualifiedName `msgpack:"send" json:"send"`
}

// MediaHandler is an aggregate in an exposed schema whose result is a
// MediaDomain: it renders the rows of a read or a call for that media
// type. It takes one relation's rows, or any rows (anyelement), where a
// relation's own handler comes first.
type MediaHandler struct {
	_msgpack  struct{}      `msgpack:",as_array"`
	Media     MediaDomain   `msgpack:"media" json:"media"`
	Aggregate QualifiedName `msgpack:"aggregate" json:"aggregate"`
	// Relation is the relation whose row type the aggregate takes; the
	// zero name for an aggregate over anyelement.
	Relation QualifiedName `msgpack:"relation" json:"relation"`
}

// AnyElement reports whether the handler takes rows of any relation.
func (h *MediaHandler) AnyElement() bool { return h.Relation == QualifiedName{} }

// Domain is a domain with what describing its values needs: the type it
// stands on, whether it refuses null, and its CHECK constraints. Only the
// domains the API shows are kept, not every domain of the database.
type Domain struct {
	_msgpack      struct{} `msgpack:",as_array"`
	QualifiedName `msgpack:",inline" json:",inline"`
	// Type is the domain as format_type prints it, which is how columns'
	// and arguments' Type name it ("api.posint", `api."Odd name"`).
	Type string `msgpack:"type" json:"type"`
	// BaseType is the type the domain is declared over, with its
	// modifiers ("character varying(20)"); for a domain over a domain,
	// that domain's Type, which is kept too.
	BaseType string `msgpack:"base_type" json:"base_type"`
	// NotNull is the domain's own NOT NULL (not its base domain's).
	NotNull bool `msgpack:"not_null" json:"not_null"`
	// Nondeterministic is set when the domain's collation compares
	// strings otherwise than by their characters (an ICU collation that
	// ignores case or accents): equality and patterns then mean more than
	// they say.
	Nondeterministic bool          `msgpack:"nondeterministic,omitempty" json:"nondeterministic,omitempty"`
	Description      string        `msgpack:"description,omitempty" json:"description,omitempty"`
	Checks           []DomainCheck `msgpack:"checks,omitempty" json:"checks,omitempty"`
}

// DomainCheck is one CHECK constraint of a domain (its own, not its base
// domain's), sorted by name.
type DomainCheck struct {
	_msgpack struct{} `msgpack:",as_array"`
	Name     string   `msgpack:"name" json:"name"`
	// Expr is the condition as pg_get_expr prints it with an empty
	// search_path: VALUE stands for the value, and every name outside
	// pg_catalog (function, operator, type) is schema-qualified, so an
	// unqualified name is PostgreSQL's own.
	Expr string `msgpack:"expr" json:"expr"`
	// Validated is false for a constraint added NOT VALID: values stored
	// before it may break it, though new ones may not.
	Validated bool `msgpack:"validated" json:"validated"`
}

// UserType is an enum or a composite type of an exposed schema: an enum
// has its labels, a composite type its attributes.
type UserType struct {
	_msgpack      struct{} `msgpack:",as_array"`
	QualifiedName `msgpack:",inline" json:",inline"`
	// Labels are an enum's labels in their sort order; nil for a
	// composite type.
	Labels []string `msgpack:"labels,omitempty" json:"labels,omitempty"`
	// Attributes are a composite type's attributes in order; nil for an
	// enum.
	Attributes []Attribute `msgpack:"attributes,omitempty" json:"attributes,omitempty"`
}

// Attribute is one attribute of a composite type.
type Attribute struct {
	_msgpack struct{} `msgpack:",as_array"`
	Name     string   `msgpack:"name" json:"name"`
	// Type is the attribute's type as format_type prints it, as a
	// column's Type.
	Type string `msgpack:"type" json:"type"`
}
