package request

import (
	"errors"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

func TestParseSelectAggregates(t *testing.T) {
	t.Parallel()
	path := func(name string, steps ...PathStep) Field { return Field{Name: name, Path: steps} }
	cases := []struct {
		in   string
		want []SelectItem
	}{
		{"amount.sum()", []SelectItem{{Field: path("amount"), Aggregate: "sum"}}},
		{"a.avg(),a.max(),a.min(),a.count()", []SelectItem{{Field: path("a"), Aggregate: "avg"},
			{Field: path("a"), Aggregate: "max"}, {Field: path("a"), Aggregate: "min"}, {Field: path("a"), Aggregate: "count"}}},
		{"count()", []SelectItem{{Aggregate: "count"}}},
		{"n:count()", []SelectItem{{Alias: "n", Aggregate: "count"}}},
		{"count()::text", []SelectItem{{Aggregate: "count", AggregateCast: "text"}}},
		{"total:amount.sum()", []SelectItem{{Field: path("amount"), Alias: "total", Aggregate: "sum"}}},
		{"amount::int.sum()", []SelectItem{{Field: path("amount"), Cast: "int", Aggregate: "sum"}}},
		{"amount.avg()::int", []SelectItem{{Field: path("amount"), Aggregate: "avg", AggregateCast: "int"}}},
		{"x:amount::numeric.avg()::double precision", []SelectItem{{Field: path("amount"), Alias: "x", Cast: "numeric",
			Aggregate: "avg", AggregateCast: "double precision"}}},
		{"a::public.money.max()", []SelectItem{{Field: path("a"), Cast: "public.money", Aggregate: "max"}}},
		{"meta->>score::int.sum()", []SelectItem{{Field: path("meta", PathStep{AsText: true, Key: "score"}),
			Cast: "int", Aggregate: "sum"}}},
		{"meta->a->0.max()", []SelectItem{{Field: path("meta", PathStep{Key: "a"}, PathStep{Key: "0", Index: true}),
			Aggregate: "max"}}},
		{"city,count()", []SelectItem{{Field: path("city")}, {Aggregate: "count"}}},
		// The bare word is a column to the grammar; planning decides.
		{"count", []SelectItem{{Field: path("count")}}},
		{"rel(amount.sum(),city)", []SelectItem{{Embed: &Embed{Name: "rel",
			Select: []SelectItem{{Field: path("amount"), Aggregate: "sum"}, {Field: path("city")}}}}}},
		{"...rel(count())", []SelectItem{{Embed: &Embed{Name: "rel", Spread: true,
			Select: []SelectItem{{Aggregate: "count"}}}}}},
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

func TestParseSelectAggregateErrors(t *testing.T) {
	t.Parallel()
	const anAggregate = `an aggregate function "avg()", "count()", "max()", "min()" or "sum()"`
	cases := []struct{ in, details string }{
		{"a.median()", `unexpected "m" expecting ` + anAggregate},
		{"a.sum", `unexpected "s" expecting ` + anAggregate},
		{"a.sum(b)", `unexpected "s" expecting ` + anAggregate},
		{"a.", `unexpected end of input expecting ` + anAggregate},
		{"a.sum()::", `unexpected end of input expecting a type name`},
		{"a.sum()::int;drop", `unexpected ";" expecting "," or end of input`},
		{"a.sum().max()", `unexpected "." expecting "," or end of input`},
		{"count()x", `unexpected "x" expecting "," or end of input`},
	}
	for _, c := range cases {
		_, err := parseSelect(c.in)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != "SVC100" || e.Details != c.details {
			t.Errorf("parseSelect(%q) = %v, want SVC100 with details %q", c.in, err, c.details)
		}
	}
}
