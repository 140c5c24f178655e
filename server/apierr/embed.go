package apierr

import (
	"strconv"
	"strings"
)

// Errors of resource embedding (SPEC.md "Relationships used for embedding").

// NotEmbedded is SVC108: a parameter addresses an embed that select does
// not name.
func NotEmbedded(name string) *Error {
	return &Error{Status: 400, Code: code("108"),
		Message: "Cannot apply filter because '" + name + "' is not an embedded resource in this request",
		Hint:    "Verify that '" + name + "' is included in the 'select' query parameter."}
}

// NotEmbeddedAlias is SVC108 for a parameter naming an aliased embed by
// its relation while url-use-legacy-target-names is off: the hint gives
// the alias to use.
func NotEmbeddedAlias(name, alias string) *Error {
	e := NotEmbedded(name)
	e.Details = "Target names are not allowed in filters if they have an alias"
	e.Hint = "Change '" + name + "' to '" + alias + "' in filters, orders or limits."
	return e
}

// RelatedOrderNotToOne is SVC118: order=rel(col) on a to-many embed.
func RelatedOrderNotToOne(origin, target string) *Error {
	return &Error{Status: 400, Code: code("118"), Message: "A related order on '" + target + "' is not possible",
		Details: notToOne(origin, target)}
}

// SpreadNotToOne is SVC119: ...rel(cols) on a to-many embed.
func SpreadNotToOne(origin, target string) *Error {
	return &Error{Status: 400, Code: code("119"), Message: "A spread operation on '" + target + "' is not possible",
		Details: notToOne(origin, target)}
}

func notToOne(origin, target string) string {
	return "'" + origin + "' and '" + target + "' do not form a many-to-one or one-to-one relationship"
}

// UnacceptableEmbedFilter is SVC120: an embed itself can only be tested
// for presence.
func UnacceptableEmbedFilter(target string) *Error {
	return &Error{Status: 400, Code: code("120"), Message: "Bad operator on the '" + target + "' embedded resource",
		Details: "Only is null or not is null filters are allowed on embedded resources"}
}

// NoRelationship is SVC200: nothing relates origin to the requested target.
// hint is the suggestion for a likely typo, or "".
func NoRelationship(origin, target, embedHint, schema, hint string) *Error {
	using := ""
	if embedHint != "" {
		using = "' using the hint '" + embedHint
	}
	return &Error{Status: 400, Code: code("200"),
		Message: "Could not find a relationship between '" + origin + "' and '" + target + "' in the schema cache",
		Details: "Searched for a foreign key relationship between '" + origin + "' and '" + target + using +
			"' in the schema '" + schema + "', but no matches were found.",
		Hint: str(hint)}
}

// Candidate is one relationship an ambiguous embed could mean.
type Candidate struct {
	Cardinality  string `json:"cardinality"`
	Embedding    string `json:"embedding"`
	Relationship string `json:"relationship"`
	// Spelling is how a request names this candidate: target!hint.
	Spelling string `json:"-"`
}

// AmbiguousEmbedding is SVC201: several relationships match an embed.
func AmbiguousEmbedding(origin, target string, candidates []Candidate) *Error {
	spellings := make([]string, len(candidates))
	for i, c := range candidates {
		spellings[i] = "'" + c.Spelling + "'"
	}
	return &Error{Status: 300, Code: code("201"),
		Message: "Could not embed because more than one relationship was found for '" + origin + "' and '" + target + "'",
		Details: candidates,
		Hint: "Try changing '" + target + "' to one of the following: " + strings.Join(spellings, ", ") +
			". Find the desired relationship in the 'details' key."}
}

// DuplicateEmbed is 42712, the duplicate-alias error PostgreSQL raises
// for PostgREST's statement, word for word: two embeds of origin share
// the output key, and PostgREST names both laterals
// `<origin>_<key>_<depth>`.
func DuplicateEmbed(origin, key string, depth int) *Error {
	return &Error{Status: 400, Code: "42712",
		Message: `table name "` + origin + "_" + key + "_" + strconv.Itoa(depth) + `" specified more than once`}
}
