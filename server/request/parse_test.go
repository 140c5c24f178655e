package request

import (
	"errors"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

func ptr(n int64) *int64 { return &n }

func TestParseSelect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []SelectItem
	}{
		{"*", []SelectItem{{Star: true}}},
		{"a,b", []SelectItem{{Field: Field{Name: "a"}}, {Field: Field{Name: "b"}}}},
		{"x:a", []SelectItem{{Field: Field{Name: "a"}, Alias: "x"}}},
		{"a::text", []SelectItem{{Field: Field{Name: "a"}, Cast: "text"}}},
		{"x:a::int[]", []SelectItem{{Field: Field{Name: "a"}, Alias: "x", Cast: "int[]"}}},
		{"a::double precision", []SelectItem{{Field: Field{Name: "a"}, Cast: "double precision"}}},
		{"a::public.my_type", []SelectItem{{Field: Field{Name: "a"}, Cast: "public.my_type"}}},
		{`"a,b":"c d"`, []SelectItem{{Field: Field{Name: "c d"}, Alias: "a,b"}}},
		{`"we\"ird"`, []SelectItem{{Field: Field{Name: `we"ird`}}}},
		{"*,name", []SelectItem{{Star: true}, {Field: Field{Name: "name"}}}},
		{"", nil},
		{"first name", []SelectItem{{Field: Field{Name: "first name"}}}},
	}
	for _, c := range cases {
		got, err := parseSelect(c.in)
		if err != nil {
			t.Errorf("parseSelect(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSelect(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseSelectEmbeds(t *testing.T) {
	t.Parallel()
	col := func(name string) SelectItem { return SelectItem{Field: Field{Name: name}} }
	cases := []struct {
		in   string
		want []SelectItem
	}{
		{"a,rel(b,c)", []SelectItem{col("a"), {Embed: &Embed{Name: "rel", Select: []SelectItem{col("b"), col("c")}}}}},
		{"x:rel(*)", []SelectItem{{Alias: "x", Embed: &Embed{Name: "rel", Select: []SelectItem{{Star: true}}}}}},
		{"rel()", []SelectItem{{Embed: &Embed{Name: "rel"}}}},
		{"rel!fk(b)", []SelectItem{{Embed: &Embed{Name: "rel", Hint: "fk", Select: []SelectItem{col("b")}}}}},
		{"rel!inner(b)", []SelectItem{{Embed: &Embed{Name: "rel", Join: JoinInner, Select: []SelectItem{col("b")}}}}},
		{"rel!fk!left(b)", []SelectItem{{Embed: &Embed{Name: "rel", Hint: "fk", Join: JoinLeft, Select: []SelectItem{col("b")}}}}},
		{"...rel(b,y:c)", []SelectItem{{Embed: &Embed{Name: "rel", Spread: true,
			Select: []SelectItem{col("b"), {Field: Field{Name: "c"}, Alias: "y"}}}}}},
		{"r1(r2(r3(a)))", []SelectItem{{Embed: &Embed{Name: "r1", Select: []SelectItem{{Embed: &Embed{Name: "r2",
			Select: []SelectItem{{Embed: &Embed{Name: "r3", Select: []SelectItem{col("a")}}}}}}}}}}},
	}
	for _, c := range cases {
		got, err := parseSelect(c.in)
		if err != nil {
			t.Errorf("parseSelect(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSelect(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseSelectDepthBounded(t *testing.T) {
	t.Parallel()
	deep := ""
	for range maxEmbedDepth + 1 {
		deep += "r("
	}
	deep += "a"
	for range maxEmbedDepth + 1 {
		deep += ")"
	}
	if _, err := parseSelect(deep); err == nil {
		t.Errorf("select nested %d deep: want an error", maxEmbedDepth+1)
	}
}

func TestSplitEmbedPath(t *testing.T) {
	t.Parallel()
	cases := []struct{ key, path, rest string }{
		{"id", "", "id"},
		{"or", "", "or"},
		{"not.or", "", "not.or"},
		{"tasks.order", "tasks", "order"},
		{"tasks.users.limit", "tasks.users", "limit"},
		{"tasks.not.and", "tasks", "not.and"},
		{"tasks.meta->a.b", "tasks", "meta->a.b"},
		{"meta->a.b", "", "meta->a.b"},
		{"trailing.", "", "trailing."},
	}
	for _, c := range cases {
		path, rest := splitEmbedPath(c.key)
		if path != c.path || rest != c.rest {
			t.Errorf("splitEmbedPath(%q) = %q, %q; want %q, %q", c.key, path, rest, c.path, c.rest)
		}
	}
}

func TestParseEmbedParams(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/t?select=a,tasks(b,users(c))&tasks.order=b.desc&tasks.limit=2&tasks.offset=1"+
		"&tasks.users.c=eq.1&tasks.or=(b.eq.1,b.eq.2)&order=clients(name).desc", nil)
	req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
	if err != nil {
		t.Fatal(err)
	}
	tasks := req.Embedded["tasks"]
	if tasks == nil || len(tasks.Order) != 1 || !tasks.Order[0].Desc || *tasks.Limit != 2 || *tasks.Offset != 1 || len(tasks.Logic) != 1 {
		t.Errorf("tasks params = %+v", tasks)
	}
	if users := req.Embedded["tasks.users"]; users == nil || len(users.Filters) != 1 || users.Filters[0].Field.Name != "c" {
		t.Errorf("tasks.users params = %+v", users)
	}
	want := []OrderTerm{{Relation: "clients", Field: Field{Name: "name"}, Desc: true}}
	if !reflect.DeepEqual(req.Order, want) {
		t.Errorf("order = %+v, want %+v", req.Order, want)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		parse   func() error
		message string
		details string
	}{
		{"empty select item", func() error { _, err := parseSelect("a,,b"); return err },
			"failed to parse select parameter (a,,b) (line 1, column 3)", `unexpected "," expecting a name`},
		{"trailing comma", func() error { _, err := parseSelect("a,"); return err },
			"failed to parse select parameter (a,) (line 1, column 3)", "unexpected end of input expecting a name"},
		{"unclosed quote", func() error { _, err := parseSelect(`"abc`); return err },
			`failed to parse select parameter ("abc) (line 1, column 5)`, `unexpected end of input expecting closing '"'`},
		{"cast with SQL", func() error { _, err := parseSelect("a::text from pg_authid"); return err },
			"failed to parse select parameter (a::text from pg_authid) (line 1, column 4)", `unexpected "t" expecting a type name`},
		{"cast with semicolon", func() error { _, err := parseSelect("a::int;drop"); return err },
			"failed to parse select parameter (a::int;drop) (line 1, column 7)", `unexpected ";" expecting "," or end of input`},
		{"unclosed embed", func() error { _, err := parseSelect("a(b"); return err },
			"failed to parse select parameter (a(b) (line 1, column 4)", `unexpected end of input expecting "," or ")"`},
		{"embed without list", func() error { _, err := parseSelect("a!inner"); return err },
			"failed to parse select parameter (a!inner) (line 1, column 8)", `unexpected end of input expecting "(" or "!"`},
		{"two hints", func() error { _, err := parseSelect("a!b!c(*)"); return err },
			"failed to parse select parameter (a!b!c(*)) (line 1, column 6)", `unexpected "(" expecting "("`},
		{"stray parenthesis", func() error { _, err := parseSelect("a,b)"); return err },
			"failed to parse select parameter (a,b)) (line 1, column 4)", `unexpected ")" expecting "," or end of input`},
		{"relation order unclosed", func() error { _, err := parseOrder("a(b.desc"); return err },
			"failed to parse order parameter (a(b.desc) (line 1, column 4)", `unexpected "." expecting ")"`},
		{"bad order direction", func() error { _, err := parseOrder("a.up"); return err },
			"failed to parse order parameter (a.up) (line 1, column 3)", `unexpected "u" expecting "asc", "desc", "nullsfirst" or "nullslast"`},
		{"bad nulls", func() error { _, err := parseOrder("a.desc.nulls"); return err },
			"failed to parse order parameter (a.desc.nulls) (line 1, column 8)", `unexpected "n" expecting "nullsfirst" or "nullslast"`},
		{"unknown operator", func() error { _, err := parseFilter("a", "eqq.1"); return err },
			"failed to parse filter parameter (eqq.1) (line 1, column 1)", ""},
		{"missing dot", func() error { _, err := parseFilter("a", "eq"); return err },
			"failed to parse filter parameter (eq) (line 1, column 3)", `unexpected end of input expecting "." before the value`},
		{"bad is", func() error { _, err := parseFilter("a", "is.maybe"); return err },
			"failed to parse filter parameter (is.maybe) (line 1, column 4)", `unexpected "m" expecting null, not_null, true, false or unknown`},
		{"unbalanced in", func() error { _, err := parseFilter("a", "in.(1,2"); return err },
			"failed to parse filter parameter (in.(1,2) (line 1, column 8)", `unexpected end of input expecting "," or ")"`},
		{"in without parens", func() error { _, err := parseFilter("a", "in.1,2"); return err },
			"failed to parse filter parameter (in.1,2) (line 1, column 4)", `unexpected "1" expecting "("`},
		{"bad quantifier", func() error { _, err := parseFilter("a", "eq(some).{1}"); return err },
			"failed to parse filter parameter (eq(some).{1}) (line 1, column 4)", `unexpected "s" expecting "any" or "all"`},
		{"quantifier on neq", func() error { _, err := parseFilter("a", "neq(any).{1}"); return err },
			"failed to parse filter parameter (neq(any).{1}) (line 1, column 5)", `unexpected "a" expecting "any" or "all"`},
		{"limit not a number", func() error { _, err := parseLimit("limit", "ten"); return err },
			"failed to parse limit parameter (ten) (line 1, column 1)", `unexpected "t" expecting a whole number`},
		{"typmod cast, which PostgREST's grammar refuses too", func() error { _, err := parseSelect("a::varchar(4)"); return err },
			"failed to parse select parameter (a::varchar(4)) (line 1, column 11)", `unexpected "(" expecting "," or end of input`},
		{"JSON path with two minus signs", func() error { _, err := parseSelect("data->>--34"); return err },
			"failed to parse select parameter (data->>--34) (line 1, column 9)", `unexpected "-" expecting digit`},
		{"JSON key starting with a reserved character", func() error { _, err := parseSelect("data->(a"); return err },
			"failed to parse select parameter (data->(a) (line 1, column 7)",
			`unexpected "(" expecting "-", digit or any non reserved character different from: .,>()`},
		{"JSON key of blanks", func() error { _, err := parseSelect("data->> "); return err },
			"failed to parse select parameter (data->> ) (line 1, column 8)",
			`unexpected " " expecting "-", digit or any non reserved character different from: .,>()`},
		{"JSON key holding NUL", func() error { _, err := parseSelect("data->>\x00"); return err },
			"failed to parse select parameter (data->>\x00) (line 1, column 8)", ""},
		{"JSON index followed by letters", func() error { _, err := parseSelect("data->>-78xy"); return err },
			"failed to parse select parameter (data->>-78xy) (line 1, column 11)",
			`unexpected "x" expecting digit, "->", "::", ".", "," or end of input`},
	}
	for _, c := range cases {
		err := c.parse()
		var e *apierr.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an SVC100 error", c.name, err)
			continue
		}
		if e.Code != "SVC100" || e.Status != 400 || e.Message != c.message {
			t.Errorf("%s: got %d %s %q, want 400 SVC100 %q", c.name, e.Status, e.Code, e.Message, c.message)
		}
		if c.details != "" && e.Details != c.details {
			t.Errorf("%s: details %q, want %q", c.name, e.Details, c.details)
		}
	}
}

func TestParseFilter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key, value string
		want       Filter
	}{
		{"id", "eq.1", Filter{Field: Field{Name: "id"}, Op: "eq", Value: "1"}},
		{"id", "eq.", Filter{Field: Field{Name: "id"}, Op: "eq", Value: ""}},
		{"name", "like.*a.b*", Filter{Field: Field{Name: "name"}, Op: "like", Value: "*a.b*"}},
		{"id", "not.in.(1,2)", Filter{Field: Field{Name: "id"}, Negate: true, Op: "in", List: []string{"1", "2"}}},
		{"t", `in.("a,b","c)",d)`, Filter{Field: Field{Name: "t"}, Op: "in", List: []string{"a,b", "c)", "d"}}},
		{"t", "in.()", Filter{Field: Field{Name: "t"}, Op: "in"}},
		{"x", "is.NULL", Filter{Field: Field{Name: "x"}, Op: "is", Value: "null"}},
		{"x", "not.is.not_null", Filter{Field: Field{Name: "x"}, Negate: true, Op: "is", Value: "not_null"}},
		{"d", "fts(english).cat & dog", Filter{Field: Field{Name: "d"}, Op: "fts", Language: "english", Value: "cat & dog"}},
		{"d", "wfts.cat", Filter{Field: Field{Name: "d"}, Op: "wfts", Value: "cat"}},
		{"n", "like(any).{a*,b*}", Filter{Field: Field{Name: "n"}, Op: "like", Quantifier: "any", Value: "{a*,b*}"}},
		{"n", "like(all).{%a%,%b%}", Filter{Field: Field{Name: "n"}, Op: "like", Quantifier: "all", Value: "{%a%,%b%}"}},
		{"n", "gt(all).{1,2}", Filter{Field: Field{Name: "n"}, Op: "gt", Quantifier: "all", Value: "{1,2}"}},
		{"t", "in.(    )", Filter{Field: Field{Name: "t"}, Op: "in"}},
		{"t", `in.("")`, Filter{Field: Field{Name: "t"}, Op: "in"}},
		{"t", `in.(")`, Filter{Field: Field{Name: "t"}, Op: "in", List: []string{`"`}}},
		{"t", `in.(Double"Quote"McGraw")`, Filter{Field: Field{Name: "t"}, Op: "in", List: []string{`Double"Quote"McGraw"`}}},
		{"t", `in.("a"b,c)`, Filter{Field: Field{Name: "t"}, Op: "in", List: []string{`"a"b`, "c"}}},
		{"t", "in.( 1, 2)", Filter{Field: Field{Name: "t"}, Op: "in", List: []string{"1", " 2"}}},
		{"r", "adj.[1,2)", Filter{Field: Field{Name: "r"}, Op: "adj", Value: "[1,2)"}},
		{`"a b"`, "isdistinct.x", Filter{Field: Field{Name: "a b"}, Op: "isdistinct", Value: "x"}},
	}
	for _, c := range cases {
		got, err := parseFilter(c.key, c.value)
		if err != nil {
			t.Errorf("parseFilter(%q, %q): %v", c.key, c.value, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseFilter(%q, %q) = %+v, want %+v", c.key, c.value, got, c.want)
		}
	}
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	got, err := parseOrder("a,b.desc,c.asc.nullsfirst,d.nullslast")
	if err != nil {
		t.Fatal(err)
	}
	want := []OrderTerm{
		{Field: Field{Name: "a"}},
		{Field: Field{Name: "b"}, Desc: true},
		{Field: Field{Name: "c"}, Nulls: NullsFirst},
		{Field: Field{Name: "d"}, Nulls: NullsLast},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseOrder = %+v, want %+v", got, want)
	}
}

func TestRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, url, method, header string
		wantOffset                int64
		wantLimit                 *int64
		wantErr                   bool
	}{
		{"none", "/t", "GET", "", 0, nil, false},
		{"limit offset", "/t?limit=5&offset=10", "GET", "", 10, ptr(5), false},
		{"header", "/t", "GET", "0-9", 0, ptr(10), false},
		{"header with unit", "/t", "GET", "items=5-9", 5, ptr(5), false},
		{"open header", "/t", "GET", "5-", 5, nil, false},
		{"header and limit intersect", "/t?limit=3", "GET", "2-9", 2, ptr(1), false},
		{"header narrower than limit", "/t?limit=100&offset=1", "GET", "0-4", 1, ptr(4), false},
		{"header ignored on HEAD", "/t", "HEAD", "0-9", 0, nil, false},
		{"unparsable header ignored", "/t", "GET", "abc", 0, nil, false},
		{"inverted header", "/t", "GET", "9-2", 0, nil, true},
		{"negative limit", "/t?limit=-1", "GET", "", 0, nil, true},
		{"negative offset ignored", "/t?offset=-4&limit=2", "GET", "", 0, ptr(2), false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.url, nil)
		if c.header != "" {
			r.Header.Set("Range", c.header)
		}
		req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
		if c.wantErr {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 416 || e.Code != "SVC103" {
				t.Errorf("%s: got %v, want 416 SVC103", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if req.Range.Offset != c.wantOffset || !reflect.DeepEqual(req.Range.Limit, c.wantLimit) {
			t.Errorf("%s: range offset %d limit %v, want %d %v", c.name, req.Range.Offset, req.Range.Limit, c.wantOffset, c.wantLimit)
		}
	}
}

func TestParseSortsFiltersAndReadsProfile(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/t?b=eq.2&a=eq.1&select=a", nil)
	r.Header.Set("Accept-Profile", "other")
	r.Header.Set("Content-Profile", "ignored")
	req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Filters) != 2 || req.Filters[0].Field.Name != "a" || req.Filters[1].Field.Name != "b" {
		t.Errorf("filters not sorted by column: %+v", req.Filters)
	}
	if req.Schema != "other" {
		t.Errorf("schema = %q, want other (Accept-Profile on GET)", req.Schema)
	}
	w := httptest.NewRequest("POST", "/t", nil)
	w.Header.Set("Content-Profile", "other")
	req, _ = Parse(apierr.SVCNaming, w, KindRelation, "t")
	if req.Schema != "other" {
		t.Errorf("schema = %q, want other (Content-Profile on POST)", req.Schema)
	}
}

func TestParseFieldPaths(t *testing.T) {
	t.Parallel()
	got, err := parseSelect(`meta->author->>name,x:tags->0,data->"a,b"->-1,data->!@#$%^&*_d->>23-xy-45,data->0->a->>2::int`)
	if err != nil {
		t.Fatal(err)
	}
	want := []SelectItem{
		{Field: Field{Name: "meta", Path: []PathStep{{Key: "author"}, {AsText: true, Key: "name"}}}},
		{Alias: "x", Field: Field{Name: "tags", Path: []PathStep{{Key: "0", Index: true}}}},
		{Field: Field{Name: "data", Path: []PathStep{{Key: "a,b"}, {Key: "-1", Index: true}}}},
		{Field: Field{Name: "data", Path: []PathStep{{Key: "!@#$%^&*_d"}, {AsText: true, Key: "23-xy-45"}}}},
		{Field: Field{Name: "data", Path: []PathStep{{Key: "0", Index: true}, {Key: "a"}, {AsText: true, Key: "2", Index: true}}}, Cast: "int"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSelect paths = %+v, want %+v", got, want)
	}
	// The output key is the last key, never an array index.
	for i, name := range []string{"name", "tags", "a,b", "23-xy-45", "a"} {
		if n := got[i].Field.OutputName(); n != name {
			t.Errorf("OutputName of item %d = %q, want %q", i, n, name)
		}
	}
	f, err := parseFilter("meta->>rating", "gte.4")
	if err != nil || len(f.Field.Path) != 1 || f.Field.Path[0].Key != "rating" || !f.Field.Path[0].AsText {
		t.Errorf("filter on JSON path = %+v, %v", f, err)
	}
	o, err := parseOrder("meta->rating.desc")
	if err != nil || len(o) != 1 || !o[0].Desc || o[0].Field.Path[0].Key != "rating" {
		t.Errorf("order on JSON path = %+v, %v", o, err)
	}
}

func TestParseLogic(t *testing.T) {
	t.Parallel()
	got, err := parseLogic("or", `(a.eq.1,b.not.in.(1,2),not.and(c.gt.2,d.is.NULL),e.eq."x,y)")`, true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := LogicTree{Or: true, Conditions: []Condition{
		{Filter: &Filter{Field: Field{Name: "a"}, Op: "eq", Value: "1"}},
		{Filter: &Filter{Field: Field{Name: "b"}, Negate: true, Op: "in", List: []string{"1", "2"}}},
		{Tree: &LogicTree{Negate: true, Conditions: []Condition{
			{Filter: &Filter{Field: Field{Name: "c"}, Op: "gt", Value: "2"}},
			{Filter: &Filter{Field: Field{Name: "d"}, Op: "is", Value: "null"}},
		}}},
		{Filter: &Filter{Field: Field{Name: "e"}, Op: "eq", Value: "x,y)"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseLogic = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"a.eq.1", "(a.eq.1", "(a.eq.1,)", "(a.zz.1)", "(a)", "(not.a.eq.1)", "()"} {
		if _, err := parseLogic("or", bad, true, false); err == nil {
			t.Errorf("parseLogic(%q) accepted malformed input", bad)
		}
	}
	// As in PostgREST: blanks around the punctuation, commas inside array
	// and range literals, and nothing read after the closing parenthesis.
	got, err = parseLogic("and", `( a.eq.1 , not.or ( b.cs.{1,2,3}, c.ov.[1,5) ) , d.in.( 1, 2 ) , e.is.null )) trailing`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	want = LogicTree{Conditions: []Condition{
		{Filter: &Filter{Field: Field{Name: "a"}, Op: "eq", Value: "1 "}},
		{Tree: &LogicTree{Or: true, Negate: true, Conditions: []Condition{
			{Filter: &Filter{Field: Field{Name: "b"}, Op: "cs", Value: "{1,2,3}"}},
			{Filter: &Filter{Field: Field{Name: "c"}, Op: "ov", Value: "[1,5)"}},
		}}},
		{Filter: &Filter{Field: Field{Name: "d"}, Op: "in", List: []string{"1", " 2 "}}},
		{Filter: &Filter{Field: Field{Name: "e"}, Op: "is", Value: "null"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseLogic with blanks = %+v, want %+v", got, want)
	}
	r := httptest.NewRequest("GET", "/t?not.or=(a.eq.1,b.eq.2)&and=(c.eq.3)", nil)
	req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Logic) != 2 || req.Logic[0].Or || !req.Logic[1].Or || !req.Logic[1].Negate {
		t.Errorf("top-level logic = %+v", req.Logic)
	}
}
