package plan

import (
	"errors"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// fieldSnapshot: paints (id, color of domain api.color, name) and jobs
// (id, paint_id) referencing them. color has a representation in each
// direction; paints have the computed fields doubled (integer) and tint
// (api.color), jobs one named tint too (text). Without casts when bare.
func fieldSnapshot(t *testing.T, bare bool) *snapshot.Snapshot {
	t.Helper()
	c := snapshot.Content{
		Relations: []snapshot.Relation{
			{QualifiedName: qn("paints"), Kind: snapshot.KindTable, Columns: []snapshot.Column{
				{Name: "id", Type: "integer", BaseType: "integer"},
				{Name: "color", Type: "api.color", BaseType: "integer"},
				{Name: "name", Type: "text", BaseType: "text"},
			}, ComputedFields: []snapshot.ComputedField{
				{Function: qn("doubled"), Type: "integer", BaseType: "integer"},
				{Function: qn("tint"), Type: "api.color", BaseType: "integer"},
			}},
			{QualifiedName: qn("jobs"), Kind: snapshot.KindTable, Columns: []snapshot.Column{
				{Name: "id", Type: "integer", BaseType: "integer"},
				{Name: "paint_id", Type: "integer", BaseType: "integer"},
			}, ComputedFields: []snapshot.ComputedField{
				{Function: snapshot.QualifiedName{Schema: "ext", Name: "tint"}, Type: "text", BaseType: "text"},
			}},
		},
		Relationships: []snapshot.Relationship{
			fk("jobs", "paints", snapshot.ManyToOne, "jobs_paint_fkey", "paint_id", "id"),
			fk("paints", "jobs", snapshot.OneToMany, "jobs_paint_fkey", "id", "paint_id"),
		},
	}
	if !bare {
		c.Casts = []snapshot.Cast{
			{Source: "api.color", Target: "json", Function: qn("color_json")},
			{Source: "json", Target: "api.color", Function: qn("color_from_json")},
			{Source: "text", Target: "api.color", Function: qn("color_from_text")},
		}
	}
	s, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fieldWords renders a node's resolved fields: "name fn=... fmt=... parse=...".
func fieldWords(fields map[string]*Field) []string {
	var out []string
	for name, f := range fields {
		w := name + " " + f.BaseType
		if f.Function != nil {
			w += " fn=" + f.Function.String()
		}
		if f.Format != nil {
			w += " fmt=" + f.Format.String()
		}
		if f.ParseText != nil {
			w += " parse=" + f.ParseText.String()
		}
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// planFields plans a GET of target (a relation of fieldSnapshot).
func planFields(t *testing.T, snap *snapshot.Snapshot, target string) (*Read, error) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	rel, _, _ := strings.Cut(strings.TrimPrefix(target, "/"), "?")
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, rel)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return BuildRead(req, snap, Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
}

func TestFieldResolution(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, target string
		bare         bool
		want         []string // the root's resolved fields
		embed        []string // its first embed's
	}{
		{"plain columns need nothing", "/paints?select=id,name&id=eq.1&order=name", false, nil, nil},
		{"a computed field in select", "/paints?select=id,d:doubled", false,
			[]string{"doubled integer fn=api.doubled"}, nil},
		{"a represented column in select", "/paints?select=color", false,
			[]string{"color integer fmt=api.color_json parse=api.color_from_text"}, nil},
		{"* holds every represented column, no computed field", "/paints", false,
			[]string{"color integer fmt=api.color_json parse=api.color_from_text"}, nil},
		{"without casts * needs nothing", "/paints?select=*", true, nil, nil},
		{"without casts a computed field has no representation", "/paints?select=tint", true,
			[]string{"tint integer fn=api.tint"}, nil},
		{"a computed field returning the domain", "/paints?select=id&order=tint", false,
			[]string{"tint integer fn=api.tint fmt=api.color_json parse=api.color_from_text"}, nil},
		{"filters and logic trees", "/paints?select=id&doubled=gt.2&or=(color.eq.x,and(tint.is.null))", false,
			[]string{"color integer fmt=api.color_json parse=api.color_from_text", "doubled integer fn=api.doubled",
				"tint integer fn=api.tint fmt=api.color_json parse=api.color_from_text"}, nil},
		{"an embed resolves against its own relation: the overload of jobs", "/paints?select=id,jobs(tint)&jobs.tint=eq.x", false,
			nil, []string{"tint text fn=ext.tint"}},
		{"a parent's order by an embed's field resolves in the embed", "/jobs?select=id,paints(name)&order=paints(doubled)", false,
			nil, []string{"doubled integer fn=api.doubled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := planFields(t, fieldSnapshot(t, tc.bare), tc.target)
			if err != nil {
				t.Fatal(err)
			}
			if got := fieldWords(p.Fields); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields %q, want %q", got, tc.want)
			}
			var embed []string
			if len(p.Embeds) > 0 {
				embed = fieldWords(p.Embeds[0].Fields)
			}
			if !reflect.DeepEqual(embed, tc.embed) {
				t.Errorf("embed fields %q, want %q", embed, tc.embed)
			}
		})
	}
}

// TestComputedFieldNotFound checks that a computed field of another
// relation is as unknown as any name: 42703, planned without the database.
func TestComputedFieldNotFound(t *testing.T) {
	t.Parallel()
	snap := fieldSnapshot(t, false)
	for _, target := range []string{"/jobs?select=doubled", "/jobs?doubled=eq.1", "/paints?select=id,jobs(doubled)", "/jobs?order=doubled"} {
		_, err := planFields(t, snap, target)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Code != "42703" {
			t.Errorf("%s: %v, want 42703", target, err)
		}
	}
}

func TestWriteFields(t *testing.T) {
	t.Parallel()
	snap := fieldSnapshot(t, false)
	r := httptest.NewRequest("PATCH", "/paints?doubled=gt.4&color=eq.x&select=id,tint", nil)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "paints")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := request.ParsePayload("application/json", []byte(`{"name":"x","color":"#fff"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := BuildWrite(req, payload, snap, Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
	if err != nil {
		t.Fatal(err)
	}
	// Payload keys are sorted: color, name. Only color has a json parser.
	if len(w.Parse) != 2 || w.Parse[0] == nil || w.Parse[0].Name != "color_from_json" || w.Parse[1] != nil {
		t.Errorf("parsers %v, want color_from_json for color only", w.Parse)
	}
	want := []string{"color integer fmt=api.color_json parse=api.color_from_text", "doubled integer fn=api.doubled"}
	if got := fieldWords(w.Fields); !reflect.DeepEqual(got, want) {
		t.Errorf("row filter fields %q, want %q", got, want)
	}
	if got := fieldWords(w.Read.Fields); !reflect.DeepEqual(got, []string{"tint integer fn=api.tint fmt=api.color_json parse=api.color_from_text"}) {
		t.Errorf("representation fields %q", got)
	}

	payload, _ = request.ParsePayload("application/json", []byte(`{"doubled":1}`), nil)
	if _, err := BuildWrite(req, payload, snap, Options{Names: apierr.SVCNaming, Schemas: []string{"api"}}); err == nil {
		t.Error("a computed field was accepted as a body key")
	}
	payload, _ = request.ParsePayload("application/json", []byte(`{"name":"x"}`), nil)
	w, err = BuildWrite(req, payload, fieldSnapshot(t, true), Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Parse != nil {
		t.Errorf("without casts: parsers %v, want none", w.Parse)
	}
}
