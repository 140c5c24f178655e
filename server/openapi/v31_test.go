package openapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// build31 returns the OpenAPI 3.1 document for role as generic JSON.
func build31(t *testing.T, snap *snapshot.Snapshot, role string, follow bool) map[string]any {
	t.Helper()
	return build(t, snap, Options{Role: role, FollowPrivileges: follow, Format: OpenAPI31, Anonymous: true})
}

// TestOpenAPI31Properties: columns become JSON Schema properties with
// what 2.0 could not say: null where the column allows it, read-only
// generated columns, the standard formats, and a domain under its name.
func TestOpenAPI31Properties(t *testing.T) {
	t.Parallel()
	doc := build31(t, fixture(t), "anon", true)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v", doc["openapi"])
	}
	props := func(rel string) map[string]any {
		p, _ := at(doc, "components", "schemas", rel, "properties").(map[string]any)
		return p
	}
	things := props("things")
	for _, c := range []struct {
		col, key string
		want     any
	}{
		{"id", "type", "integer"},
		{"id", "format", "int32"},
		{"code", "maxLength", 8.0},
		{"mood", "type", []any{"string", "null"}},
		{"mood", "enum", []any{"up", "down", nil}},
		{"price", "type", "number"},
		{"price", "format", "api.money_d"},
		{"price", "default", 0.0},
		{"label", "default", "none"},
		{"at", "format", "date-time"},
		{"at", "default", nil},
		{"data", "type", nil},
		{"tags", "type", []any{"array", "null"}},
		{"tags", "items", map[string]any{"type": "string"}},
		{"gen", "readOnly", true},
		{"id", "readOnly", nil},
	} {
		if got := at(things, c.col, c.key); !reflect.DeepEqual(got, c.want) {
			t.Errorf("things.%s.%s = %#v, want %#v", c.col, c.key, got, c.want)
		}
	}
	if got := at(doc, "components", "schemas", "things", "required"); got != nil {
		t.Errorf("rows require %v; select= may leave any column out", got)
	}
	insert := at(doc, "paths", "/things", "post", "requestBody", "content", "application/x-www-form-urlencoded", "schema", "required")
	if !reflect.DeepEqual(insert, []any{"id", "code"}) {
		t.Errorf("an insert requires %v, want id and code", insert)
	}
	if props("a-2Fb-20c") != nil {
		t.Error("anon sees a relation it holds no privilege on")
	}
	if got := at(doc, "paths", "/things", "put", "parameters"); !reflect.DeepEqual(at(got.([]any)[0], "name"), "id") ||
		at(got.([]any)[0], "required") != true {
		t.Errorf("PUT /things filters %v, want id required", got)
	}
	if at(doc, "paths", "/inbox", "put") != nil {
		t.Error("PUT on a relation anon may not update")
	}
	if got := at(doc, "paths", "/inbox", "post", "requestBody", "content", "text/csv"); got == nil {
		t.Error("no CSV body for an insert")
	}
}

// TestOpenAPI31FullRow: besides the row component, where select= may
// leave any column out, a full row component requires every column the
// role may read, and rows in responses are either.
func TestOpenAPI31FullRow(t *testing.T) {
	t.Parallel()
	doc := build31(t, fixture(t), "anon", true)
	for _, c := range []struct {
		rel  string
		want []any
	}{
		{"things", []any{"id", "code", "label", "mood", "price", "at", "data", "tags", "owner_id", "gen", "order"}},
		// SELECT on the table reads body too, though its own grant is INSERT.
		{"inbox", []any{"id", "body"}},
	} {
		full := at(doc, "components", "schemas", c.rel+".row")
		if got := at(full, "required"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.row requires %v, want %v", c.rel, got, c.want)
		}
		if got := at(full, "allOf"); !reflect.DeepEqual(got, []any{map[string]any{"$ref": "#/components/schemas/" + c.rel}}) {
			t.Errorf("%s.row: allOf %v", c.rel, got)
		}
	}
	rows := at(doc, "components", "responses", "things.rows", "content", "application/json", "schema", "items", "anyOf")
	want := []any{map[string]any{"$ref": "#/components/schemas/things.row"}, map[string]any{"$ref": "#/components/schemas/things"}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows of things: %v, want %v", rows, want)
	}
}

// TestOpenAPI31Privileges: the document follows the role as the 2.0 one
// does; component names stay within what OpenAPI allows.
func TestOpenAPI31Privileges(t *testing.T) {
	t.Parallel()
	snap := fixture(t)
	anon := build31(t, snap, "anon", true)
	member := build31(t, snap, "member", true)
	if at(anon, "paths", "/owners") != nil || at(member, "paths", "/owners", "get") == nil {
		t.Error("owners: want it for member only")
	}
	if at(anon, "paths", "/rpc/secret") != nil || at(member, "paths", "/rpc/secret", "post") == nil {
		t.Error("rpc/secret: want it for member only")
	}
	all := build31(t, snap, "anon", false)
	if at(all, "components", "schemas", "a-2Fb-20c") == nil || at(all, "paths", "/a%2Fb%20c") == nil {
		t.Errorf("ignoring privileges, a/b c is not described under an allowed name: %v", at(all, "paths"))
	}
	if got := at(all, "paths", "/a%2Fb%20c", "get", "operationId"); got != "get.a-2Fb-20c" {
		t.Errorf("operationId = %v", got)
	}
	// A GET-only function: its volatile overload makes POST the only way
	// to call both.
	if at(anon, "paths", "/rpc/bump", "get") != nil || at(anon, "paths", "/rpc/sum", "get", "parameters") == nil {
		t.Error("GET on functions: want it for sum only")
	}
	sec, _ := json.Marshal(anon["security"])
	if string(sec) != `[{"jwt":[]},{}]` {
		t.Errorf("security = %s, want a bearer token or none", sec)
	}
	if at(anon, "components", "securitySchemes", "jwt", "scheme") != "bearer" {
		t.Error("no bearer security scheme")
	}
}

// TestOpenAPI31Errors: every operation answers SVC's error object for a
// client's and a server's fault.
func TestOpenAPI31Errors(t *testing.T) {
	t.Parallel()
	doc := build31(t, fixture(t), "anon", true)
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if at(op, "responses", "4XX", "$ref") != "#/components/responses/Error" {
				t.Errorf("%s %s: no 4XX error response", method, path)
			}
		}
	}
	if got := at(doc, "components", "schemas", "Error", "required"); !reflect.DeepEqual(got, []any{"code", "message", "details", "hint"}) {
		t.Errorf("Error requires %v", got)
	}
}

// TestCacheKeepsVersionsApart: the two versions of one role's document
// are two documents.
func TestCacheKeepsVersionsApart(t *testing.T) {
	t.Parallel()
	c, _, snap := newTestCache(t, 1<<22)
	v2 := served(t, c, snap, cacheOpts("anon"))
	opts := cacheOpts("anon")
	opts.Format = OpenAPI31
	v3 := served(t, c, snap, opts)
	if string(v2) == string(v3) || c.Len() != 2 {
		t.Errorf("%d documents kept; want the 2.0 and the 3.1 one apart", c.Len())
	}
}
