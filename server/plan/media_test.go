package plan

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

func TestNegotiate(t *testing.T) {
	t.Parallel()
	api := func(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }
	pg := func(name string) snapshot.QualifiedName {
		return snapshot.QualifiedName{Schema: "pg_catalog", Name: name}
	}
	text, bytea := pg("textsend"), pg("byteasend")
	domain := func(typ string, send snapshot.QualifiedName) snapshot.MediaDomain {
		return snapshot.MediaDomain{Type: typ, Send: send}
	}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		MediaHandlers: []snapshot.MediaHandler{
			{Media: domain("text/x", text), Aggregate: api("any_x")},
			{Media: domain("text/x", text), Aggregate: api("lines_x"), Relation: api("lines")},
			{Media: domain("*/*", bytea), Aggregate: api("notes_any"), Relation: api("notes")},
			{Media: domain("application/vnd.svc.object", text), Aggregate: api("object")},
			{Media: domain("application/json", text), Aggregate: api("lines_json"), Relation: api("lines")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	png := &snapshot.Function{QualifiedName: api("png"), Returns: snapshot.ReturnsScalar,
		ReturnType: api("image/png"), Media: &snapshot.MediaDomain{Type: "image/png", Send: bytea}}
	words := &snapshot.Function{QualifiedName: api("words"), Returns: snapshot.ReturnsScalar, ReturnType: pg("text")}
	anyFn := &snapshot.Function{QualifiedName: api("any"), Returns: snapshot.ReturnsScalar,
		ReturnType: api("*/*"), Media: &snapshot.MediaDomain{Type: "*/*", Send: bytea}}
	lines := mediaTarget{rows: api("lines"), wholeRows: true}
	linesSelected := mediaTarget{rows: api("lines")}
	notes := mediaTarget{rows: api("notes"), wholeRows: true}
	handled := func(name string, binary bool) request.Media {
		return request.Media{Kind: request.MediaHandler, Name: name, Binary: binary}
	}
	cases := []struct {
		name      string
		target    mediaTarget
		accept    string
		media     request.Media
		aggregate string // "" for none; "-" for a function's own value
	}{
		{"a relation's own handler first", lines, "text/x", handled("text/x", false), "lines_x"},
		{"any relation's handler for another relation", notes, "text/x", handled("application/octet-stream", true), "notes_any"},
		{"any relation's when the rows are not as stored", linesSelected, "text/x", handled("text/x", false), "any_x"},
		{"a relation taking over application/json", lines, "application/json", handled("application/json", false), "lines_json"},
		{"SVC's JSON without select=*", linesSelected, "application/json", request.Media{Kind: request.MediaJSON}, ""},
		{"q-values first", linesSelected, "text/x;q=0.1, text/csv", request.Media{Kind: request.MediaCSV}, ""},
		{"a */* handler answers anything", notes, "app/bingo", handled("application/octet-stream", true), "notes_any"},
		{"vendor types stay SVC's", lines, "application/vnd.svc.object", request.Media{Vendor: "svc", Kind: request.MediaObject}, ""},
		{"a plan for a handler's type", lines, `application/vnd.svc.plan; for="text/x"`,
			request.Media{Vendor: "svc", Kind: request.MediaPlan, PlanFor: request.MediaHandler, PlanForName: "text/x"}, "lines_x"},
		{"a function's own media type", mediaTarget{fn: png}, "image/png", handled("image/png", true), "-"},
		{"skipping what it does not return", mediaTarget{fn: png}, "image/jpeg, application/json", request.Media{Kind: request.MediaJSON}, ""},
		{"*/* asks for SVC's JSON", mediaTarget{fn: png}, "*/*", request.Media{Kind: request.MediaJSON}, ""},
		{"text answers text/plain", mediaTarget{fn: words}, "text/plain", handled("text/plain", false), "-"},
		{"a */* function answers anything", mediaTarget{fn: anyFn}, "application/json", handled("application/octet-stream", true), "-"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/x", nil)
			r.Header.Set("Accept", c.accept)
			req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "x")
			if err != nil {
				t.Fatal(err)
			}
			media, h, err := negotiate(apierr.SVCNaming, req, snap, c.target)
			if err != nil {
				t.Fatal(err)
			}
			if media.Kind != c.media.Kind || media.Name != c.media.Name || media.Binary != c.media.Binary ||
				media.PlanFor != c.media.PlanFor || media.PlanForName != c.media.PlanForName {
				t.Errorf("media %+v, want %+v", media, c.media)
			}
			got := ""
			switch {
			case h == nil:
			case h.Aggregate == nil:
				got = "-"
			default:
				got = h.Aggregate.Name
			}
			if got != c.aggregate {
				t.Errorf("handler %q, want %q", got, c.aggregate)
			}
		})
	}
	for _, accept := range []string{"image/png", `application/vnd.svc.plan; for="image/png"`, "text/x;q=0"} {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Header.Set("Accept", accept)
		req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "x")
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = negotiate(apierr.SVCNaming, req, snap, lines)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != "SVC107" || e.Status != 415 {
			t.Errorf("%q: %v, want 415 SVC107", accept, err)
		}
	}
}
