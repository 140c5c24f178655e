package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// renderRelationship writes r on one line, so the whole inferred list reads
// (and diffs) like a table.
func renderRelationship(r snapshot.Relationship) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s %s %s", r.Table, r.ForeignTable, r.Cardinality, r.Constraint)
	if len(r.Columns) > 0 {
		fmt.Fprintf(&b, " (%s)", renderPairs(r.Columns))
	}
	if j := r.Junction; j != nil {
		fmt.Fprintf(&b, " via %s %s(%s) %s(%s)", j.Table, j.SourceConstraint, renderPairs(j.SourceColumns),
			j.TargetConstraint, renderPairs(j.TargetColumns))
	}
	if r.Function != nil {
		fmt.Fprintf(&b, " fn %s", r.Function)
	}
	if r.IsSelf {
		b.WriteString(" self")
	}
	return b.String()
}

func renderPairs(ps []snapshot.ColumnPair) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.Column+"="+p.ForeignColumn)
	}
	return strings.Join(parts, ", ")
}

// The fixture's relationships as PostgREST infers them: each foreign key
// both ways between every pair of relations showing its columns (tables,
// and views: with renamed columns, also by ALTER VIEW; over views; over
// joins; through CTEs and subqueries; through a view in the extra search
// path; over a table in a private schema); one-to-one for author_profiles
// (by primary key) and passports (by unique constraint); many-to-many
// through book_tags and, to itself, through friendships; computed ones from
// functions. Nothing for api.hidden_orders, whose chain runs through a
// schema neither exposed nor searched.
var wantRelationships = `
api.author_profiles -> api.authors one-to-one author_profiles_author_id_fkey (author_id=id)
api.author_profiles -> api.books_with_authors one-to-one author_profiles_author_id_fkey (author_id=author_id)
api.author_stats -> api.authors many-to-one books_author_id_fkey (author_id=id)
api.author_stats -> api.books_with_authors many-to-one books_author_id_fkey (author_id=author_id)
api.authors -> api.author_profiles one-to-one author_profiles_author_id_fkey (id=author_id)
api.authors -> api.author_stats one-to-many books_author_id_fkey (id=author_id)
api.authors -> api.book_list one-to-many books_author_id_fkey (id=writer)
api.authors -> api.book_list_short one-to-many books_author_id_fkey (id=author)
api.authors -> api.books many-to-one best_book fn api.best_book
api.authors -> api.books one-to-many books_author_id_fkey (id=author_id)
api.authors -> api.books many-to-one first_book fn api.first_book
api.authors -> api.books one-to-many written fn api.written
api.big_orders -> api.book_list many-to-one orders_book_id_fkey (book_id=id)
api.big_orders -> api.book_list_short many-to-one orders_book_id_fkey (book_id=id)
api.big_orders -> api.books many-to-one orders_book_id_fkey (book_id=id)
api.big_orders -> api.books_with_authors many-to-one orders_book_id_fkey (book_id=book_id)
api.book_list -> api.authors many-to-one books_author_id_fkey (writer=id)
api.book_list -> api.big_orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list -> api.book_tags one-to-many book_tags_book_id_fkey (id=book_id)
api.book_list -> api.books_with_authors many-to-one books_author_id_fkey (writer=author_id)
api.book_list -> api.orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list -> api.recent_orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list -> api.tags many-to-many book_tags_tag_id_fkey via api.book_tags book_tags_book_id_fkey(book_id=id) book_tags_tag_id_fkey(tag_id=id)
api.book_list_short -> api.authors many-to-one books_author_id_fkey (author=id)
api.book_list_short -> api.big_orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list_short -> api.book_tags one-to-many book_tags_book_id_fkey (id=book_id)
api.book_list_short -> api.books_with_authors many-to-one books_author_id_fkey (author=author_id)
api.book_list_short -> api.orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list_short -> api.recent_orders one-to-many orders_book_id_fkey (id=book_id)
api.book_list_short -> api.tags many-to-many book_tags_tag_id_fkey via api.book_tags book_tags_book_id_fkey(book_id=id) book_tags_tag_id_fkey(tag_id=id)
api.book_tags -> api.book_list many-to-one book_tags_book_id_fkey (book_id=id)
api.book_tags -> api.book_list_short many-to-one book_tags_book_id_fkey (book_id=id)
api.book_tags -> api.books many-to-one book_tags_book_id_fkey (book_id=id)
api.book_tags -> api.books_with_authors many-to-one book_tags_book_id_fkey (book_id=book_id)
api.book_tags -> api.tags many-to-one book_tags_tag_id_fkey (tag_id=id)
api.books -> api.authors many-to-one books_author_id_fkey (author_id=id)
api.books -> api.big_orders one-to-many orders_book_id_fkey (id=book_id)
api.books -> api.book_tags one-to-many book_tags_book_id_fkey (id=book_id)
api.books -> api.books_with_authors many-to-one books_author_id_fkey (author_id=author_id)
api.books -> api.orders one-to-many orders_book_id_fkey (id=book_id)
api.books -> api.recent_orders one-to-many orders_book_id_fkey (id=book_id)
api.books -> api.tags many-to-many book_tags_tag_id_fkey via api.book_tags book_tags_book_id_fkey(book_id=id) book_tags_tag_id_fkey(tag_id=id)
api.books_with_authors -> api.author_profiles one-to-one author_profiles_author_id_fkey (author_id=author_id)
api.books_with_authors -> api.author_stats one-to-many books_author_id_fkey (author_id=author_id)
api.books_with_authors -> api.big_orders one-to-many orders_book_id_fkey (book_id=book_id)
api.books_with_authors -> api.book_list one-to-many books_author_id_fkey (author_id=writer)
api.books_with_authors -> api.book_list_short one-to-many books_author_id_fkey (author_id=author)
api.books_with_authors -> api.book_tags one-to-many book_tags_book_id_fkey (book_id=book_id)
api.books_with_authors -> api.books one-to-many books_author_id_fkey (author_id=author_id)
api.books_with_authors -> api.orders one-to-many orders_book_id_fkey (book_id=book_id)
api.books_with_authors -> api.recent_orders one-to-many orders_book_id_fkey (book_id=book_id)
api.books_with_authors -> api.tags many-to-many book_tags_tag_id_fkey via api.book_tags book_tags_book_id_fkey(book_id=book_id) book_tags_tag_id_fkey(tag_id=id)
api.employees -> api.employees one-to-many colleagues fn api.colleagues self
api.employees -> api.employees many-to-one employees_manager_id_fkey (manager_id=id) self
api.employees -> api.employees one-to-many employees_manager_id_fkey (id=manager_id) self
api.employees -> api.employees many-to-many friendships_a_fkey via api.friendships friendships_b_fkey(b=id) friendships_a_fkey(a=id) self
api.employees -> api.employees many-to-many friendships_b_fkey via api.friendships friendships_a_fkey(a=id) friendships_b_fkey(b=id) self
api.employees -> api.friendships one-to-many friendships_a_fkey (id=a)
api.employees -> api.friendships one-to-many friendships_b_fkey (id=b)
api.employees -> api.passports one-to-one passports_employee_id_fkey (id=employee_id)
api.friendships -> api.employees many-to-one friendships_a_fkey (a=id)
api.friendships -> api.employees many-to-one friendships_b_fkey (b=id)
api.measurements -> api.sensors many-to-one measurements_sensor_id_fkey (sensor_id=id)
api.orders -> api.book_list many-to-one orders_book_id_fkey (book_id=id)
api.orders -> api.book_list_short many-to-one orders_book_id_fkey (book_id=id)
api.orders -> api.books many-to-one orders_book_id_fkey (book_id=id)
api.orders -> api.books_with_authors many-to-one orders_book_id_fkey (book_id=book_id)
api.passports -> api.employees one-to-one passports_employee_id_fkey (employee_id=id)
api.recent_orders -> api.book_list many-to-one orders_book_id_fkey (book_id=id)
api.recent_orders -> api.book_list_short many-to-one orders_book_id_fkey (book_id=id)
api.recent_orders -> api.books many-to-one orders_book_id_fkey (book_id=id)
api.recent_orders -> api.books_with_authors many-to-one orders_book_id_fkey (book_id=book_id)
api.sensors -> api.measurements one-to-many measurements_sensor_id_fkey (id=sensor_id)
api.tags -> api.book_list many-to-many book_tags_book_id_fkey via api.book_tags book_tags_tag_id_fkey(tag_id=id) book_tags_book_id_fkey(book_id=id)
api.tags -> api.book_list_short many-to-many book_tags_book_id_fkey via api.book_tags book_tags_tag_id_fkey(tag_id=id) book_tags_book_id_fkey(book_id=id)
api.tags -> api.book_tags one-to-many book_tags_tag_id_fkey (id=tag_id)
api.tags -> api.books many-to-many book_tags_book_id_fkey via api.book_tags book_tags_tag_id_fkey(tag_id=id) book_tags_book_id_fkey(book_id=id)
api.tags -> api.books_with_authors many-to-many book_tags_book_id_fkey via api.book_tags book_tags_tag_id_fkey(tag_id=id) book_tags_book_id_fkey(book_id=book_id)
`

func TestRelationships(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	var got []string
	for _, r := range s.Content.Relationships {
		got = append(got, renderRelationship(r))
	}
	want := strings.Split(strings.TrimSpace(wantRelationships), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("relationships differ\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRelationshipsReferencing: the direction from the table holding a
// foreign key is marked (a computed relationship has none), so that of a
// one-to-one relationship's two directions, which share a cardinality,
// the referencing one is known.
func TestRelationshipsReferencing(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	oneToOne := map[string]bool{
		"api.author_profiles -> api.authors":            true,
		"api.authors -> api.author_profiles":            false,
		"api.passports -> api.employees":                true,
		"api.employees -> api.passports":                false,
		"api.author_profiles -> api.books_with_authors": true,
		"api.books_with_authors -> api.author_profiles": false,
	}
	seen := 0
	for _, r := range s.Content.Relationships {
		name := r.Table.String() + " -> " + r.ForeignTable.String()
		want := r.Cardinality == snapshot.ManyToOne && !r.Computed()
		if r.Cardinality == snapshot.OneToOne {
			w, ok := oneToOne[name]
			if !ok {
				continue
			}
			want = w
			seen++
		}
		if r.Referencing != want {
			t.Errorf("%s (%s): referencing %v, want %v", name, r.Cardinality, r.Referencing, want)
		}
	}
	if seen != len(oneToOne) {
		t.Errorf("saw %d of the %d one-to-one relationships checked", seen, len(oneToOne))
	}
}
