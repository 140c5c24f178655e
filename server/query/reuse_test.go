package query_test

import (
	"bytes"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// reuseShapes are reads of benchSnapshot's tables with {} where a filter
// operand goes, [] where an element of a list operand goes. Every operator form and every level an operand can sit
// at is here, beside the parameters that shape the statement.
var reuseShapes = []struct{ target, accept, prefer string }{
	{"/orders?c0=eq.{}", "", ""},
	{"/orders?c0=neq.{}&c1=gt.{}&c2=gte.{}&c3=lt.{}&c4=lte.{}&order=c0.desc&limit=25&offset=5", "", ""},
	{"/orders?c0=in.([],[],[])&c1=not.in.([])&doc->>a=like.*{}*&doc->a->>b=ilike.{}*", "text/csv", ""},
	{"/orders?c0=eq(any).{[],[]}&c1=like(all).{[],[]}&c2=match.{}&c3=imatch.{}", "", "count=exact"},
	{"/orders?doc->>t=fts(english).{}&doc->>t=plfts.{}&doc->>t=phfts(simple).{}&doc->>t=wfts.{}", "", ""},
	{"/orders?tags=cs.{[],[]}&tags=cd.{[]}&tags=ov.{[]}&c5=is.null&c6=not.is.true&c7=isdistinct.{}", "", "count=planned"},
	{"/orders?select=c0,t1(c0,c2),t2(c0,c3)&t2.c3=eq.{}&t2.c0=in.([],[])&t2.order=c0.desc&t2.limit=5&c1=neq.{}", "", "count=estimated"},
	{"/orders?select=c0,t1(c0,orders(c0))&t1.orders.c0=gt.{}&t1.c2=lt.{}&limit=3", "application/vnd.svc.object+json", ""},
	{"/orders?select=c0,t2(c0)&t2=not.is.null&c0=eq.{}&c0=eq.{}&c0=neq.{}", "", ""},
}

// reuseValues are operands: plain, empty, with quotes, commas, stars,
// braces and escapes that survive the URL, so binding has to redo each
// operator's quoting.
var reuseValues = []string{"1", "42", "abc", "", "a%20b", "%22q%22", "x%2Cy", "%5C", "%7Bz%7D", "%25", "%C3%A9", "a*b"}

// reuseElements are list elements: a quoted one may hold what would end
// an unquoted one.
var reuseElements = []string{"1", "42", "abc", "", "a%20b", "%22q,%5C%22%22", "%5C", "%25", "%C3%A9", "a*b"}

func fillShape(shape string, rng *rand.Rand) string {
	var sb strings.Builder
	for {
		i := strings.IndexAny(shape, "{[")
		if i < 0 || i+1 == len(shape) {
			sb.WriteString(shape)
			return sb.String()
		}
		sb.WriteString(shape[:i])
		switch shape[i : i+2] {
		case "{}":
			sb.WriteString(reuseValues[rng.IntN(len(reuseValues))])
		case "[]":
			sb.WriteString(reuseElements[rng.IntN(len(reuseElements))])
		default:
			sb.WriteByte(shape[i])
			shape = shape[i+1:]
			continue
		}
		shape = shape[i+2:]
	}
}

// built parses, plans and builds a GET of target against snapshot snap.
type built struct {
	tpl         request.Template
	shaped      bool
	read        query.Statement
	count       *query.Statement
	parseFailed bool
}

func buildTarget(t *testing.T, target, accept, prefer string) built {
	t.Helper()
	snap := benchSnapshot(t)
	r := httptest.NewRequest("GET", target, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	if prefer != "" {
		r.Header.Set("Prefer", prefer)
	}
	var b built
	b.shaped = b.tpl.Read(r, request.KindRelation, "orders")
	b.tpl.Key = bytes.Clone(b.tpl.Key)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
	if err != nil {
		b.parseFailed = true
		return b
	}
	p, err := plan.BuildRead(req, snap, plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}, MaxRows: 1000})
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	b.read, b.count = query.Read(p), query.PlanCount(p)
	return b
}

// bindsLike binds kept to tpl and reports whether that gives want: the
// same SQL and the same arguments. A bind that fails gives no statement.
func bindsLike(kept query.Statement, tpl *request.Template, want query.Statement) (query.Statement, bool) {
	got, ok := kept.Bind(tpl)
	return got, ok && got.SQL == want.SQL && reflect.DeepEqual(got.Args, want.Args)
}

// A statement kept from one read binds, for another read of its shape,
// exactly the statement parsing, planning and building would make.
func TestShapeBindsLikeAFreshBuild(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range reuseShapes {
		first := buildTarget(t, fillShape(shape.target, rng), shape.accept, shape.prefer)
		if !first.shaped || first.parseFailed {
			t.Errorf("%s: no template or no parse (%v, %v)", shape.target, first.shaped, first.parseFailed)
			continue
		}
		if shape.prefer != "" && shape.prefer != "count=exact" && first.count == nil {
			t.Errorf("%s: %s makes no count statement", shape.target, shape.prefer)
		}
		kept, ok := first.read.Shape()
		if !ok {
			t.Errorf("%s: statement cannot be kept: %+v", shape.target, first.read.Sources)
			continue
		}
		if kept.Sum != query.SumSQL(kept.SQL) || first.read.Sum != 0 {
			t.Errorf("%s: kept statement's sum %d, its text's %d; the fresh one's %d, want 0",
				shape.target, kept.Sum, query.SumSQL(kept.SQL), first.read.Sum)
		}
		if ex := query.Explain(kept, true, nil); ex.Sum != 0 {
			t.Errorf("%s: EXPLAIN of a kept statement carries the sum %d of the text it wraps", shape.target, ex.Sum)
		}
		for range 20 {
			target := fillShape(shape.target, rng)
			next := buildTarget(t, target, shape.accept, shape.prefer)
			if next.parseFailed || !next.shaped {
				t.Errorf("%s: no template or no parse", target)
				continue
			}
			if !bytes.Equal(next.tpl.Key, first.tpl.Key) {
				t.Errorf("%s: key differs from its shape's", target)
				continue
			}
			if got, ok := bindsLike(kept, &next.tpl, next.read); !ok {
				t.Errorf("%s: bound\n%s\n%q\nwant\n%s\n%q", target, got.SQL, got.Args, next.read.SQL, next.read.Args)
			}
			if first.count != nil {
				keptCount, _ := first.count.Shape()
				if got, ok := bindsLike(keptCount, &next.tpl, *next.count); !ok {
					t.Errorf("%s: bound count %q, want %q", target, got.Args, next.count.Args)
				}
			}
		}
	}
}

// Operands inside logic trees and payloads have no slot: statements
// holding one are never kept, and a kept statement does not bind from
// filters that cannot be its own.
func TestShapeRefusesWhatItCannotTrace(t *testing.T) {
	t.Parallel()
	b := buildTarget(t, "/orders?or=(c0.eq.1,c1.eq.2)&c2=eq.3", "", "")
	if _, ok := b.read.Shape(); ok {
		t.Error("a statement with logic-tree operands was kept")
	}
	r := httptest.NewRequest("POST", "/orders?c0=eq.1", nil)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindRelation, "orders")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := request.ParsePayload("application/json", []byte(`{"c1": 2}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := plan.BuildWrite(req, payload, benchSnapshot(t), plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := query.Write(w).Shape(); ok {
		t.Error("an insert, bound to its payload, was kept")
	}
	if _, ok := callBuild(t, "/rpc/vary?v=1&v=2").read.Shape(); ok {
		t.Error("a call with a variadic array, built from several parameters, was kept")
	}
	lookup := buildTarget(t, "/orders?c0=eq.1", "", "")
	kept, _ := lookup.read.Shape()
	if _, ok := kept.Bind(&request.Template{}); ok {
		t.Error("bound with no filters")
	}
	if _, ok := kept.Bind(&request.Template{Filters: []request.Filter{{}}}); ok {
		t.Error("bound from a slot that holds no filter")
	}
	for i, a := range kept.Args {
		if kept.Sources[i].Slot != 0 && a != nil {
			t.Errorf("kept statement holds operand %v of the request it was built for", a)
		}
	}
}

// Every statement accounts for each of its arguments, calls included,
// whose argument list and call are written by a builder of their own.
func TestEveryArgumentHasASource(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"/rpc/orders_by?k=1", "/rpc/orders_by?k=1&c0=eq.2&doc->>a=like.x*&order=c1&limit=3"} {
		st := callBuild(t, target).read
		if len(st.Sources) != len(st.Args) || len(st.Args) == 0 {
			t.Errorf("%s: %d arguments, %d sources", target, len(st.Args), len(st.Sources))
		}
	}
}

// callShapes are GET calls of callSnapshot's functions, with {} where an
// argument's value or a filter's operand goes.
var callShapes = []string{
	"/rpc/orders_by?k={}",
	"/rpc/orders_by?k={}&c0=eq.{}&doc->>a=like.*{}&c1=in.([],[])&order=c1.desc&limit=3",
	"/rpc/orders_by?select=c0,t1(c2)&k={}&t1.c2=gt.{}",
	"/rpc/add?a={}&b={}",
	"/rpc/add?a={}&b={}&a={}",
	"/rpc/add?b={}",
	"/rpc/keys_of?k={}&svc_scalar=gt.{}&order=svc_scalar.desc&limit=3&offset=1",
	"/rpc/keys_of?k={}&svc_scalar=in.([],[])&svc_scalar=neq.{}",
}

// A kept call binds, for another call of its shape, exactly the statement
// a fresh build makes: arguments by their parameter's whole value, the
// last of repeated ones, and filters on the result by their operands.
func TestCallShapeBindsLikeAFreshBuild(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range callShapes {
		first := callBuild(t, fillShape(shape, rng))
		kept, ok := first.read.Shape()
		if !first.shaped || !ok {
			t.Errorf("%s: template %v, kept %v", shape, first.shaped, ok)
			continue
		}
		bound := 0
		for range 20 {
			target := fillShape(shape, rng)
			next := callBuild(t, target)
			if !bytes.Equal(next.tpl.Key, first.tpl.Key) {
				// An argument's value that parses as a filter or not
				// keys apart; both are right, neither binds the other.
				continue
			}
			bound++
			if got, ok := bindsLike(kept, &next.tpl, next.read); !ok {
				t.Errorf("%s: bound\n%s\n%q\nwant\n%s\n%q", target, got.SQL, got.Args, next.read.SQL, next.read.Args)
			}
		}
		if bound == 0 {
			t.Errorf("%s: no call shared the first one's key", shape)
		}
	}
}

// callSnapshot is benchSnapshot with functions: api.orders_by(k integer)
// returning setof api.orders, api.add(a integer, b integer default)
// returning an integer, api.vary(variadic v integer[]), and
// api.keys_of(k integer) returning setof integer.
func callSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	c := benchContent()
	fn := func(name string, returns snapshot.ReturnShape, ret string, args ...snapshot.Argument) snapshot.Function {
		return snapshot.Function{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: name}, Arguments: args,
			ReturnType: snapshot.QualifiedName{Schema: "api", Name: ret}, Returns: returns}
	}
	c.Functions = []snapshot.Function{
		fn("orders_by", snapshot.ReturnsSetOfComposite, "orders", snapshot.Argument{Name: "k", Type: "integer", Mode: snapshot.ArgIn}),
		fn("add", snapshot.ReturnsScalar, "integer", snapshot.Argument{Name: "a", Type: "integer", Mode: snapshot.ArgIn, HasDefault: true},
			snapshot.Argument{Name: "b", Type: "integer", Mode: snapshot.ArgIn}),
		fn("vary", snapshot.ReturnsScalar, "integer", snapshot.Argument{Name: "v", Type: "integer[]", Mode: snapshot.ArgVariadic}),
	}
	c.Functions[2].Variadic = true
	keys := fn("keys_of", snapshot.ReturnsSetOfScalar, "int4", snapshot.Argument{Name: "k", Type: "integer", Mode: snapshot.ArgIn})
	keys.ReturnType.Schema = "pg_catalog"
	c.Functions = append(c.Functions, keys)
	snap, err := snapshot.New(snapshot.Header{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// callBuild reads the template of a GET of target, a call of one of
// callSnapshot's functions, and builds its statement.
func callBuild(t *testing.T, target string) built {
	t.Helper()
	name := strings.TrimPrefix(strings.SplitN(target, "?", 2)[0], "/rpc/")
	r := httptest.NewRequest("GET", target, nil)
	var b built
	b.shaped = b.tpl.Read(r, request.KindFunction, name)
	b.tpl.Key = bytes.Clone(b.tpl.Key)
	req, err := request.Parse(apierr.SVCNaming, r, request.KindFunction, name)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	call, err := plan.BuildCall(req, nil, nil, "application/json", callSnapshot(t), plan.Options{Names: apierr.SVCNaming, Schemas: []string{"api"}})
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	b.read = query.Call(call)
	return b
}
