package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestOpenAPI31DomainSchemas: the live 3.1 document describes the
// fixture's domains (dm_*) as components with their checks as keywords,
// the columns and the function using them refer to them, and what JSON
// Schema cannot state is quoted.
func TestOpenAPI31DomainSchemas(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(fetchRootAs(t, fixture.url, openAPI31, "", ""), &doc); err != nil {
		t.Fatal(err)
	}
	schemas := jsonAt(doc, "components", "schemas")
	ref := func(key string) string { return `{"$ref":"#/components/schemas/` + key + `"}` }
	orNull := func(key string) string { return `{"anyOf":[` + ref(key) + `,{"type":"null"}]}` }
	for _, c := range []struct {
		what string
		got  any
		want string
	}{
		{"positive integer", jsonAt(schemas, "test.dm_posint"), `{"type":"integer","format":"test.dm_posint","exclusiveMinimum":0}`},
		{"bounded text", jsonAt(schemas, "test.dm_name"), `{"type":"string","format":"test.dm_name","minLength":1,"maxLength":20}`},
		{"pattern", jsonAt(schemas, "test.dm_code"), `{"type":"string","format":"test.dm_code","pattern":"^[A-Z]{3}[0-9]+$"}`},
		{"list", jsonAt(schemas, "test.dm_size"), `{"type":"string","format":"test.dm_size","enum":["S","M","L"]}`},
		{"domain over a domain", jsonAt(schemas, "test.dm_small"), `{"allOf":[` + ref("test.dm_posint") + `],"exclusiveMaximum":100}`},
		{"check not stated", jsonAt(schemas, "test.dm_lower"), `{"type":"string","format":"test.dm_lower",
			"description":"A word in lower case.\n\nValues must also pass: CHECK ((lower(VALUE) = VALUE))."}`},
		// numeric(8,2) rounds before the check: -0.004 is 0.00.
		{"rounded numeric", jsonAt(schemas, "test.dm_price"), `{"type":"number","format":"test.dm_price","minimum":-0.005,"maximum":1000.005}`},
		{"nullable column", jsonAt(schemas, "dm_items", "properties", "qty"), orNull("test.dm_posint")},
		{"NOT NULL domain column", jsonAt(schemas, "dm_items", "properties", "code"), ref("test.dm_code")},
		{"argument", jsonAt(doc, "paths", "/rpc/dm_double", "post", "requestBody", "content", "application/json", "schema", "properties", "n"),
			orNull("test.dm_posint")},
		{"result", jsonAt(doc, "paths", "/rpc/dm_double", "post", "responses", "200", "content", "application/json", "schema"),
			orNull("test.dm_posint")},
		{"insert requires", jsonAt(doc, "paths", "/dm_items", "post", "requestBody", "content", "application/x-www-form-urlencoded", "schema", "required"),
			`["id","code"]`},
	} {
		got, err := json.Marshal(c.got)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, c.want) {
			t.Errorf("%s: %s\nwant %s", c.what, got, c.want)
		}
	}
}

// domainSample is a value of a dm_items column and whether PostgreSQL
// takes it.
type domainSample struct {
	column string
	value  string // JSON
}

// TestOpenAPI31DomainsAgreeWithPostgreSQL validates values of the
// dm_items columns with ajv against their schemas in the live document
// and stores them with PostgreSQL (json_populate_record, as writes do,
// rolled back): every value PostgreSQL accepts must be valid, and every
// value it refuses invalid, but for the check the document only quotes.
func TestOpenAPI31DomainsAgreeWithPostgreSQL(t *testing.T) {
	node := requireNodePackage(t, validatorDir, "ajv")
	samples := []domainSample{
		{"qty", `1`}, {"qty", `2147483647`}, {"qty", `null`}, {"qty", `0`}, {"qty", `-3`},
		{"name", `"a"`}, {"name", `"twenty characters ok"`}, {"name", `"ééé"`}, {"name", `""`}, {"name", `"twenty-one characters"`},
		{"code", `"ABC1"`}, {"code", `"XYZ123"`}, {"code", `"AB1"`}, {"code", `"abc1"`}, {"code", `"ABC1\n"`}, {"code", `null`},
		{"size", `"S"`}, {"size", `"L"`}, {"size", `"XL"`}, {"size", `"s"`},
		{"small", `1`}, {"small", `99`}, {"small", `100`}, {"small", `0`},
		{"word", `"steel"`}, {"word", `"Steel"`},
		{"price", `0`}, {"price", `1000`}, {"price", `999.99`}, {"price", `-0.004`}, {"price", `1000.004`},
		{"price", `-0.01`}, {"price", `1000.01`},
	}
	// The one check the document cannot state: lower(VALUE) = VALUE.
	unstated := map[string]bool{"word": true}

	conn, err := pgx.Connect(t.Context(), fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	type pointed struct {
		Pointer string          `json:"pointer"`
		Value   json.RawMessage `json:"value"`
	}
	var input []pointed
	accepts := make([]bool, len(samples))
	for i, s := range samples {
		input = append(input, pointed{"/components/schemas/dm_items/properties/" + s.column, json.RawMessage(s.value)})
		// code is NOT NULL: the other columns' samples come with one.
		_, err := conn.Exec(t.Context(), `select json_populate_record(null::test.dm_items,
			('{"code":"ABC1"}'::jsonb || jsonb_build_object($1::text, $2::jsonb))::json)`, s.column, s.value)
		accepts[i] = err == nil
	}
	dir := t.TempDir()
	docFile := writeDoc(t, fetchRootAs(t, fixture.url, openAPI31, "", ""))
	samplesFile := filepath.Join(dir, "samples.json")
	data, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(samplesFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var valid []bool
	out := runTool(t, node, ".", filepath.Join(validatorDir, "schema_check.js"), docFile, samplesFile)
	if err := json.Unmarshal(out, &valid); err != nil || len(valid) != len(samples) {
		t.Fatalf("schema_check.js printed %s (%v)", out, err)
	}
	refused := 0
	for i, s := range samples {
		switch {
		case accepts[i] && !valid[i]:
			t.Errorf("%s = %s: PostgreSQL accepts it, the schema refuses it", s.column, s.value)
		case !accepts[i] && valid[i] && !unstated[s.column]:
			t.Errorf("%s = %s: PostgreSQL refuses it, the schema accepts it", s.column, s.value)
		case !accepts[i] && !valid[i]:
			refused++
		}
		if unstated[s.column] && !valid[i] {
			t.Errorf("%s = %s: refused by a check the document only quotes", s.column, s.value)
		}
	}
	// The samples must show both sides, or they prove nothing.
	if refused < 10 {
		t.Errorf("only %d samples are refused by both; the samples do not test the checks", refused)
	}
}

// jsonAt walks a decoded JSON document along keys; nil when one is missing.
func jsonAt(doc any, keys ...string) any {
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[k]
	}
	return doc
}

// sameJSON compares a JSON text with the expected one semantically.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%v: %s", err, want)
	}
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}
