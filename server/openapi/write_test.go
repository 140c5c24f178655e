package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// trickyFixture has names whose keys sort apart from the names
// themselves ("a-b" and "a.b" around "a", escaped routes, "<" and "&"
// that JSON escapes), names that make one key ("a"."b.c" and "a.b"."c"
// both filter "rowFilter.a.b.c"; a relation named Error or Filter takes
// the 3.1 component of that name; a domain named row in schema a takes
// relation a's full row component), reserved column names, a relation
// the anonymous role may only insert into, and overloaded functions.
func trickyFixture(t testing.TB) *snapshot.Snapshot {
	t.Helper()
	var rels []snapshot.Relation
	for _, n := range []string{"a", "a-b", "a.b", "Error", "Filter", "rpc", "x{y}", "a b", "ab", "a_b", "Zed", "a.row", "<html>&"} {
		r := table(n, grant("PUBLIC", "SELECT", "INSERT", "UPDATE", "DELETE"))
		r.Columns = append(r.Columns, snapshot.Column{Name: "b.c", Type: "text", Nullable: true},
			snapshot.Column{Name: "c", Type: "text", Nullable: true},
			snapshot.Column{Name: "row", Type: "api.a.row", BaseType: "text", Nullable: true},
			snapshot.Column{Name: "limit", Type: "text", Nullable: true})
		rels = append(rels, r)
	}
	rels = append(rels, table("insonly", grant("anon", "INSERT")))
	fn := func(n string, v snapshot.Volatility, typ string) snapshot.Function {
		return snapshot.Function{QualifiedName: name(n), Volatility: v, Grants: grant("PUBLIC", "EXECUTE"),
			Arguments: []snapshot.Argument{{Name: "x", Type: typ, Mode: snapshot.ArgIn}}, Returns: snapshot.ReturnsScalar,
			ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "int4"}}
	}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		Relations: rels,
		Functions: []snapshot.Function{fn("a", snapshot.Stable, "integer"), fn("a-b", snapshot.Volatile, "api.a.row"),
			fn("zz", snapshot.Stable, "text"), fn("a", snapshot.Volatile, "text")},
		Domains: []snapshot.Domain{
			{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "row"}, Type: "api.a.row", BaseType: "text"},
			{QualifiedName: snapshot.QualifiedName{Schema: "a", Name: "row"}, Type: "a.row", BaseType: "text"}},
		Roles: []snapshot.Role{{Name: "anon", Inherit: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestWriteMatchesReference: the streamed document is, byte for byte,
// the one encoding/json gives the whole tree, in both versions, for
// every fixture, role and privileges mode, with and without security and
// a public address.
func TestWriteMatchesReference(t *testing.T) {
	t.Parallel()
	snaps := []struct {
		name, schema string
		snap         *snapshot.Snapshot
	}{
		{"fixture", "api", fixture(t)}, {"domains", "api", domainsFixture(t)},
		{"tricky", "api", trickyFixture(t)}, {"large", "big", largeSnapshot(t)}, {"other schema", "other", fixture(t)},
	}
	for _, sn := range snaps {
		for _, format := range Formats {
			for _, role := range []string{"anon", "member", "user", "nobody"} {
				for _, follow := range []bool{true, false} {
					for _, public := range []bool{true, false} {
						opts := Options{Schema: sn.schema, Role: role, FollowPrivileges: follow, Vendor: "svc",
							Format: format, Version: "1.2.3", Security: public, Anonymous: public}
						if public {
							opts.Scheme, opts.Host, opts.BasePath = "https", "api.example:443", "/v1"
						}
						name := fmt.Sprintf("%s/%s/%s/follow=%v/public=%v", sn.name, format, role, follow, public)
						got, err := Build(sn.snap, opts)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if want := reference(t, sn.snap, opts); !bytes.Equal(got, want) {
							t.Errorf("%s: the streamed document differs from the whole one at byte %d", name, firstDiff(got, want))
						}
					}
				}
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// failAfter fails every write once n bytes were written.
type failAfter struct{ n int }

var errWriteFailed = errors.New("write failed")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, errWriteFailed
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteStopsOnFailure: a destination that fails ends the writing
// with its error, not a document that looks whole.
func TestWriteStopsOnFailure(t *testing.T) {
	t.Parallel()
	snap := largeSnapshot(t)
	for _, format := range Formats {
		w := &failAfter{n: 3 * streamBuffer}
		err := Write(w, snap, Options{Schema: "big", Role: "anon", Vendor: "svc", Format: format})
		if !errors.Is(err, errWriteFailed) {
			t.Errorf("%s: Write returned %v, want the destination's failure", format, err)
		}
	}
}
