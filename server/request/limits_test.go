package request

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// TestCheckLimits checks each limit under, at and over its bound, counted
// across logic trees, embedded resources and function parameters.
func TestCheckLimits(t *testing.T) {
	t.Parallel()
	filters := Limits{Filters: 3}
	items := Limits{SelectItems: 4}
	depth := Limits{EmbedDepth: 2}
	embeds := Limits{Embeds: 2}
	path := Limits{JSONPathDepth: 2}
	logic := Limits{LogicDepth: 2}
	steps := Limits{JSONPathSteps: 4}
	cases := []struct {
		name   string
		kind   Kind
		query  string
		limits Limits
		// key is the configuration key the refusal names; "" for none.
		key string
	}{
		{"filters under", KindRelation, "a=eq.1&b=eq.2", filters, ""},
		{"filters at, with a logic tree", KindRelation, "a=eq.1&or=(b.eq.1,c.eq.2)", filters, ""},
		{"filters over in nested trees", KindRelation, "or=(a.eq.1,and(b.eq.1,not.or(c.eq.1,d.eq.1)))", filters, "request-max-filters"},
		{"filters over across embeds", KindRelation, "select=*,rel(*,r2(*))&a=eq.1&rel.b=eq.1&rel.r2.or=(c.eq.1,d.eq.1)", filters, "request-max-filters"},
		{"filters at across embeds", KindRelation, "select=*,rel(*)&a=eq.1&rel.b=eq.1&rel.c=eq.1", filters, ""},
		{"order, limit and offset are no filters", KindRelation, "order=a,b,c,d&limit=1&offset=2&rel.order=e&a=eq.1", filters, ""},
		{"function parameters at", KindFunction, "a=1&b=2&c=3", filters, ""},
		{"function parameters over", KindFunction, "a=1&b=2&c=3&d=4", filters, "request-max-filters"},
		{"function parameters and a tree over", KindFunction, "a=1&b=2&or=(c.eq.1,d.eq.1)", filters, "request-max-filters"},
		{"select items at", KindRelation, "select=a,b,c,d", items, ""},
		{"select items over", KindRelation, "select=a,b,c,d,e", items, "request-max-select-items"},
		{"select items at with an embed", KindRelation, "select=a,rel(b,c)", items, ""},
		{"select items over in a nested embed", KindRelation, "select=a,rel(b,r2(c))", items, "request-max-select-items"},
		{"embed depth under", KindRelation, "select=r1(a),r2(b),r3(c)", depth, ""},
		{"embed depth at", KindRelation, "select=r1(r2(a))", depth, ""},
		{"embed depth over", KindRelation, "select=r1(r2(r3(a)))", depth, "request-max-embed-depth"},
		{"embed depth over in one branch, by an empty embed", KindRelation, "select=r1(a),r2(r3(r4()))", depth, "request-max-embed-depth"},
		{"embeds at", KindRelation, "select=r1(a),r2(b)", embeds, ""},
		{"embeds over, spread and empty ones included", KindRelation, "select=r1(),...r2(b),r3(c)", embeds, "request-max-embeds"},
		{"embeds over by nesting", KindRelation, "select=r1(r2(r3(a)))", embeds, "request-max-embeds"},
		{"path at in select", KindRelation, "select=j->a->>b", path, ""},
		{"path over in select", KindRelation, "select=j->a->b->>c", path, "request-max-json-path-depth"},
		{"path over in an embed's select", KindRelation, "select=r(j->a->b->c)", path, "request-max-json-path-depth"},
		{"path over in an aggregate", KindRelation, "select=j->a->b->c::int.sum()", path, "request-max-json-path-depth"},
		{"path over in a filter", KindRelation, "j->a->b->>c=eq.1", path, "request-max-json-path-depth"},
		{"path over in a logic tree", KindRelation, "or=(a.eq.1,and(j->a->b->c.eq.1))", path, "request-max-json-path-depth"},
		{"path over in an embed's filter", KindRelation, "select=r(a)&r.j->a->b->c=eq.1", path, "request-max-json-path-depth"},
		{"path over in order", KindRelation, "order=j->a->b->c.desc", path, "request-max-json-path-depth"},
		{"path over in an embed's order", KindRelation, "select=r(a)&r.order=j->a->b->c", path, "request-max-json-path-depth"},
		{"path over in a function's filter", KindFunction, "x=1&j->a->b->c=eq.1", path, "request-max-json-path-depth"},
		{"path at in a function's filter", KindFunction, "x=1&j->a->b=eq.1", path, ""},
		{"path steps at, over select, filters and order", KindRelation, "select=j->a&j->>b=eq.1&order=j->c->d", steps, ""},
		{"path steps over, no path too deep", KindRelation, "select=j->a&j->>b=eq.1&k->a=eq.2&order=j->c->d", steps, "request-max-json-path-steps"},
		{"path steps over in logic trees", KindRelation, "or=(j->a.eq.1,and(j->b.eq.1,j->c->d->e.eq.1))", steps, "request-max-json-path-steps"},
		{"path steps over across embeds", KindRelation, "select=j->a,r(k->b)&r.k->c=eq.1&r.order=k->d->e", steps, "request-max-json-path-steps"},
		{"path steps over in a function's filters", KindFunction, "x=1&j->a->b=eq.1&k->c->d->>e=eq.1", steps, "request-max-json-path-steps"},
		{"plain columns are no path steps", KindRelation, "select=a,b,c,d,e&a=eq.1&b=eq.1&order=c", steps, ""},
		{"logic depth at", KindRelation, "or=(a.eq.1,and(b.eq.1,c.eq.1))", logic, ""},
		{"logic depth over", KindRelation, "or=(a.eq.1,and(b.eq.1,not.or(c.eq.1)))", logic, "request-max-logic-depth"},
		{"logic depth over on an embed", KindRelation, "select=r(a)&r.and=(or(and(a.eq.1)))", logic, "request-max-logic-depth"},
		{"logic depth over in a function's tree", KindFunction, "not.and=(or(and(a.eq.1)))", logic, "request-max-logic-depth"},
		{"zero limits bound nothing", KindRelation, "select=r1(r2(r3(a,b,c,d,e)))&a=eq.1&b=eq.1&c=eq.1&d=eq.1", Limits{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", "/x?"+c.query, nil), c.kind, "x")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = req.CheckLimits(c.limits)
			if c.key == "" {
				if err != nil {
					t.Errorf("CheckLimits(%+v) = %v, want nil", c.limits, err)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Code != apierr.SVCNaming.CodePrefix+"100" {
				t.Fatalf("CheckLimits(%+v) = %v, want 400 %s100", c.limits, err, apierr.SVCNaming.CodePrefix)
			}
			if details, _ := e.Details.(string); !strings.Contains(details, c.key) {
				t.Errorf("details %q do not name %s", details, c.key)
			}
		})
	}
}

// TestCheckLimitsCounts pins the counts the messages report.
func TestCheckLimitsCounts(t *testing.T) {
	t.Parallel()
	req, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", "/x?select=a,r1(b,r2(c,r3(d)))&a=eq.1&or=(b.eq.1,not.and(c.eq.1,d.eq.1))&r1.r2.e=eq.1", nil), KindRelation, "x")
	if err != nil {
		t.Fatal(err)
	}
	if n := req.filterCount(); n != 5 {
		t.Errorf("filterCount = %d, want 5", n)
	}
	if n := selectItemCount(req.Select); n != 7 {
		t.Errorf("selectItemCount = %d, want 7", n)
	}
	if n := embedDepth(req.Select); n != 3 {
		t.Errorf("embedDepth = %d, want 3", n)
	}
	if n := embedCount(req.Select); n != 3 {
		t.Errorf("embedCount = %d, want 3", n)
	}
	deep, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", "/x?select=j->a,r(k->a->b)&or=(a.eq.1,and(j->a->b->c.eq.1,or(b.eq.1)))", nil), KindRelation, "x")
	if err != nil {
		t.Fatal(err)
	}
	if n := deep.jsonPathDepth(); n != 3 {
		t.Errorf("jsonPathDepth = %d, want 3", n)
	}
	if n := deep.jsonPathSteps(); n != 6 {
		t.Errorf("jsonPathSteps = %d, want 6", n)
	}
	if n := deep.logicDepth(); n != 3 {
		t.Errorf("logicDepth = %d, want 3", n)
	}
	err = req.CheckLimits(Limits{Filters: 4})
	want := "The request has 5 filter conditions; request-max-filters allows 4"
	if e := apierr.From(err); e.Details != want || e.Message != "More than 4 filters" {
		t.Errorf("error %q / %v, want details %q", e.Message, e.Details, want)
	}
}

// TestEmbedDepthCeiling: the parser takes as deep a select as the highest
// request-max-embed-depth allows, and no deeper.
func TestEmbedDepthCeiling(t *testing.T) {
	t.Parallel()
	nested := func(levels int) string {
		return strings.Repeat("r(", levels) + "a" + strings.Repeat(")", levels)
	}
	items, err := parseSelect(nested(maxEmbedDepth))
	if err != nil {
		t.Fatalf("select nested %d deep: %v", maxEmbedDepth, err)
	}
	if n := embedDepth(items); n != maxEmbedDepth {
		t.Errorf("embedDepth = %d, want %d", n, maxEmbedDepth)
	}
	if _, err := parseSelect(nested(maxEmbedDepth + 1)); err == nil {
		t.Errorf("select nested %d deep: want an error", maxEmbedDepth+1)
	}
}

// TestDepthCeilings: the parser takes JSON paths and logic trees as deep
// as the highest request-max-json-path-depth and request-max-logic-depth
// allow, and no deeper, so a hostile value is refused before it is built
// (thousands of arrows overflowed PostgreSQL's stack; thousands of nested
// trees its parser).
func TestDepthCeilings(t *testing.T) {
	t.Parallel()
	path := func(steps int) string { return "j" + strings.Repeat("->a", steps) }
	tree := func(levels int) string {
		return "(" + strings.Repeat("or(", levels-1) + "a.eq.1" + strings.Repeat(")", levels-1) + ")"
	}
	cases := []struct {
		name  string
		parse func() (*Request, error)
		depth func(*Request) int
		at    int
	}{
		{"path in select", func() (*Request, error) { return parseQuery("select=" + path(maxJSONPathDepth)) }, (*Request).jsonPathDepth, maxJSONPathDepth},
		{"path in a filter", func() (*Request, error) { return parseQuery(path(maxJSONPathDepth) + "=eq.1") }, (*Request).jsonPathDepth, maxJSONPathDepth},
		{"logic tree", func() (*Request, error) { return parseQuery("or=" + tree(maxLogicDepth)) }, (*Request).logicDepth, maxLogicDepth},
	}
	over := []func() (*Request, error){
		func() (*Request, error) { return parseQuery("select=" + path(maxJSONPathDepth+1)) },
		func() (*Request, error) { return parseQuery(path(maxJSONPathDepth+1) + "=eq.1") },
		func() (*Request, error) { return parseQuery("or=" + tree(maxLogicDepth+1)) },
	}
	for i, c := range cases {
		req, err := c.parse()
		if err != nil {
			t.Fatalf("%s %d deep: %v", c.name, c.at, err)
		}
		if n := c.depth(req); n != c.at {
			t.Errorf("%s: depth %d, want %d", c.name, n, c.at)
		}
		_, err = over[i]()
		if e := apierr.From(err); err == nil || e.Status != 400 || e.Code != apierr.SVCNaming.CodePrefix+"100" {
			t.Errorf("%s %d deep: %v, want 400 %s100", c.name, c.at+1, err, apierr.SVCNaming.CodePrefix)
		}
	}
}

// parseQuery parses a read of /x with query string q.
func parseQuery(q string) (*Request, error) {
	r := httptest.NewRequest("GET", "/x", nil)
	r.URL.RawQuery = q
	return Parse(apierr.SVCNaming, r, KindRelation, "x")
}

// TestCheckLimitsMessages pins each limit's message and details, which
// clients and operators read: every bound is told with its key, the
// count and the bound.
func TestCheckLimitsMessages(t *testing.T) {
	t.Parallel()
	req, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", "/x?select=a,j->a->b,r(k->a->b,s(t()))&a=eq.1&b=eq.2&or=(c.eq.1,and(d.eq.1))", nil), KindRelation, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limits           Limits
		message, details string
	}{
		{Limits{Filters: 3}, "More than 3 filters",
			"The request has 4 filter conditions; request-max-filters allows 3"},
		{Limits{SelectItems: 4}, "More than 4 select items",
			"The select list has 6 items, embedded resources' included; request-max-select-items allows 4"},
		{Limits{EmbedDepth: 2}, "Embedding deeper than 2 levels",
			"The select list embeds 3 levels deep; request-max-embed-depth allows 2"},
		{Limits{Embeds: 2}, "More than 2 embedded resources",
			"The select list embeds 3 resources, nested ones included; request-max-embeds allows 2"},
		{Limits{JSONPathDepth: 1}, "JSON path longer than 1 steps",
			"A JSON path in the request has 2 steps; request-max-json-path-depth allows 1"},
		{Limits{JSONPathSteps: 3}, "More than 3 JSON path steps",
			"The JSON paths in the request have 4 steps together; request-max-json-path-steps allows 3"},
		{Limits{LogicDepth: 1}, "Logic trees nested deeper than 1 levels",
			"A logic tree in the request nests 2 levels deep; request-max-logic-depth allows 1"},
	} {
		e := apierr.From(req.CheckLimits(tc.limits))
		if e.Message != tc.message || e.Details != tc.details {
			t.Errorf("%+v: got %q / %v, want %q / %q", tc.limits, e.Message, e.Details, tc.message, tc.details)
		}
	}
	if err := req.CheckLimits(Limits{Filters: 4, SelectItems: 6, EmbedDepth: 3, Embeds: 3,
		JSONPathDepth: 2, JSONPathSteps: 4, LogicDepth: 2}); err != nil {
		t.Errorf("at every bound: %v", err)
	}
}

// CheckLimits runs for every request parsed: within its bounds it must
// not allocate, BenchmarkServeRead's figures included.
func TestCheckLimitsAllocatesNothing(t *testing.T) {
	req, err := Parse(apierr.SVCNaming, httptest.NewRequest("GET", "/x?select=a,r(b)&a=eq.1&or=(c.eq.1,d.eq.2)", nil), KindRelation, "x")
	if err != nil {
		t.Fatal(err)
	}
	l := Limits{Filters: 10, SelectItems: 10, EmbedDepth: 10, Embeds: 10, JSONPathDepth: 10, JSONPathSteps: 10, LogicDepth: 10}
	if n := testing.AllocsPerRun(100, func() {
		if err := req.CheckLimits(l); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("CheckLimits allocates %v times a call", n)
	}
}
