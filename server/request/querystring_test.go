package request

import (
	"errors"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// Query strings split as PostgREST splits them: no pair is ever dropped.
func TestQueryPairs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw  string
		want []Pair
	}{
		{"", nil},
		{"a=1&b=2", []Pair{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}},
		{"k=eq.a;b", []Pair{{Key: "b", Value: ""}, {Key: "k", Value: "eq.a"}}},
		{"k=eq.a;b=eq.c", []Pair{{Key: "b", Value: "eq.c"}, {Key: "k", Value: "eq.a"}}},
		{"k=eq.50%", []Pair{{Key: "k", Value: "eq.50%"}}},
		{"k=eq.%zz%4", []Pair{{Key: "k", Value: "eq.%zz%4"}}},
		{"k=eq.%2541%41", []Pair{{Key: "k", Value: "eq.%41A"}}},
		{"k=a+b%2Bc", []Pair{{Key: "k", Value: "a b+c"}}},
		{"a%20b=x=y", []Pair{{Key: "a b", Value: "x=y"}}},
		{"&&a&;=1;", []Pair{{Key: "", Value: "1"}, {Key: "a", Value: ""}}},
		{"b=2&a=1&b=1", []Pair{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}, {Key: "b", Value: "1"}}},
		{"k=%E2%82%AC", []Pair{{Key: "k", Value: "€"}}},
	}
	for _, c := range cases {
		got, err := queryPairs(nil, c.raw)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("queryPairs(%q) = %+v, %v; want %+v", c.raw, got, err, c.want)
		}
	}
}

// A pair that is not UTF-8 once decoded is refused with SVC100 naming it.
func TestQueryPairsRefuseNonUTF8(t *testing.T) {
	t.Parallel()
	for raw, message := range map[string]string{
		"a=1&k=eq.%ff":  "failed to parse query parameter (k=eq.%ff)",
		"%c3=1":         "failed to parse query parameter (%c3=1)",
		"a=\xff;b=1":    "failed to parse query parameter (a=\xff)",
		"x=%E2%82&y=%A": "failed to parse query parameter (x=%E2%82)",
	} {
		_, err := queryPairs(nil, raw)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != "SVC100" || e.Message != message {
			t.Errorf("queryPairs(%q) gave %v, want 400 SVC100 %q", raw, err, message)
		}
	}
}

// Parse keeps every filter a client wrote, whatever separates the pairs or
// however a value is escaped; a pair it cannot read refuses the request.
func TestParseDropsNoPair(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query string
		want  []Filter
	}{
		{"k=eq.a;n=gt.1", []Filter{
			{Field: Field{Name: "k"}, Op: "eq", Value: "a", Slot: 1},
			{Field: Field{Name: "n"}, Op: "gt", Value: "1", Slot: 2}}},
		{"k=eq.50%", []Filter{{Field: Field{Name: "k"}, Op: "eq", Value: "50%", Slot: 1}}},
		{"k=like.*%zz*&select=k", []Filter{{Field: Field{Name: "k"}, Op: "like", Value: "*%zz*", Slot: 1}}},
		{"k=eq.a+b", []Filter{{Field: Field{Name: "k"}, Op: "eq", Value: "a b", Slot: 1}}},
	}
	for _, c := range cases {
		r := httptest.NewRequest("DELETE", "/t", nil)
		r.URL.RawQuery = c.query
		req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if !reflect.DeepEqual(req.Filters, c.want) {
			t.Errorf("%s: filters %+v, want %+v", c.query, req.Filters, c.want)
		}
	}
	for _, query := range []string{"k=eq.a;b", "k=eq.%ff", "k=eq.1&b"} {
		r := httptest.NewRequest("DELETE", "/t", nil)
		r.URL.RawQuery = query
		_, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != "SVC100" {
			t.Errorf("%s: got %v, want 400 SVC100", query, err)
		}
	}
}

// The select list, order and the rest are read whatever separates them.
func TestParseSemicolonSeparatesReserved(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/t", nil)
	r.URL.RawQuery = "select=a;order=a.desc;limit=2;on_conflict=a;columns=a,b"
	req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Select) != 1 || len(req.Order) != 1 || !req.Order[0].Desc || req.Limit == nil || *req.Limit != 2 ||
		!reflect.DeepEqual(req.OnConflict, []string{"a"}) || !reflect.DeepEqual(req.Columns, []string{"a", "b"}) {
		t.Fatalf("got select %+v order %+v limit %v on_conflict %v columns %v", req.Select, req.Order, req.Limit, req.OnConflict, req.Columns)
	}
}

// Form bodies split as query strings do, for rows and for calls alike;
// a form is one row, sent as one object.
func TestFormPairs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body     string
		call     bool
		wantJSON string
	}{
		{"a=1;b=2", false, `{"a":"1","b":"2"}`},
		{"a=50%&b=x+y", false, `{"a":"50%","b":"x y"}`},
		{"a=1;a=2&a=3", false, `{"a":"3"}`},
		{"v=1;v=2&v=%zz", true, `{"v":["1","2","%zz"]}`},
		{"v=1&w", true, `{"v":"1","w":""}`},
	}
	for _, c := range cases {
		var p *Payload
		var err error
		if c.call {
			p, err = ParseCallForm([]byte(c.body))
		} else {
			p, err = ParsePayload("application/x-www-form-urlencoded", []byte(c.body), nil)
		}
		if err != nil || string(p.JSON) != c.wantJSON {
			t.Errorf("%q (call %v): got %v %v, want %s", c.body, c.call, p, err, c.wantJSON)
		}
	}
	_, err := ParseCallForm([]byte("a=1&b=%ff"))
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != "SVC102" || e.Details != "cannot read b=%ff: the value is not UTF-8 once percent-decoded" {
		t.Errorf("a form pair that is not UTF-8: got %v, want SVC102 naming it", err)
	}
}
