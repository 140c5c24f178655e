package catalog

import (
	"reflect"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// TestDomains: the snapshot keeps the domains exposed columns, arrays,
// arguments, results and computed fields are of, and those they stand
// on, wherever they live, with their NOT NULL, collation and checks; no
// other domain.
func TestDomains(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	check := func(name, expr string) snapshot.DomainCheck {
		return snapshot.DomainCheck{Name: name, Expr: expr, Validated: true}
	}
	for _, want := range []snapshot.Domain{
		{QualifiedName: snapshot.QualifiedName{Schema: "hidden", Name: "posint"}, Type: "hidden.posint", BaseType: "integer",
			Checks: []snapshot.DomainCheck{check("posint_check", "(VALUE > 0)")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "stars"}, Type: "api.stars", BaseType: "hidden.posint", NotNull: true,
			Checks: []snapshot.DomainCheck{check("stars_check", "((VALUE)::integer <= 5)"), check("stars_check1", "((VALUE)::integer <> 4)")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "tag_text"}, Type: "api.tag_text", BaseType: "text",
			Checks: []snapshot.DomainCheck{check("tag_text_check", "((char_length(VALUE) >= 1) AND (char_length(VALUE) <= 12))")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "legacy"}, Type: "api.legacy", BaseType: "integer",
			Checks: []snapshot.DomainCheck{{Name: "legacy_even", Expr: "((VALUE % 2) = 0)"}}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "grade"}, Type: "api.grade", BaseType: "text", Nondeterministic: true,
			Checks: []snapshot.DomainCheck{check("grade_check", "(VALUE = ANY (ARRAY['a'::text, 'b'::text]))")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "code_d"}, Type: "api.code_d", BaseType: "character varying(6)",
			Checks: []snapshot.DomainCheck{check("code_d_check", "((VALUE)::text ~ '^[A-Z]+$'::text)")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "private", Name: "label_d"}, Type: "private.label_d", BaseType: "text",
			Checks: []snapshot.DomainCheck{check("label_d_check", "(VALUE <> ''::text)")}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "nick"}, Type: "api.nick", BaseType: "api.short_text"},
	} {
		got := s.Domain(want.Type)
		if got == nil {
			t.Errorf("domain %s not kept", want.Type)
			continue
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("domain %s\n got %+v\nwant %+v", want.Type, *got, want)
		}
	}
	if s.Domain("hidden.unused") != nil {
		t.Error("a domain nothing exposed uses was kept")
	}
	var names []string
	for _, d := range s.Content.Domains {
		names = append(names, d.QualifiedName.String())
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] && s.Content.Domains[i-1].Schema == s.Content.Domains[i].Schema {
			t.Errorf("domains out of order: %v", names)
		}
	}
}
