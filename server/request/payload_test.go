package request

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

func TestParsePayload(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contentType, body string
		columns                 []string
		wantJSON                string
		wantKeys                []string
		wantRows                int
		wantArray               bool
		wantFirst               string
		wantHeader              []string // positional rows' names; nil for objects
	}{
		{"object", "", `{"b":1,"a":"x"}`, nil, `{"b":1,"a":"x"}`, []string{"a", "b"}, 1, false, `{"b":1,"a":"x"}`, nil},
		{"object with a key repeated and escaped", "", ` {"a":1,"\u0062":[{"c":"}"}],"a":2} `, nil,
			`{"a":1,"\u0062":[{"c":"}"}],"a":2}`, []string{"a", "b"}, 1, false, `{"a":1,"\u0062":[{"c":"}"}],"a":2}`, nil},
		{"array", "application/json; charset=utf-8", ` [{"a":1},{"a":2}] `, nil, `[{"a":1},{"a":2}]`, []string{"a"}, 2, true, `{"a":1}`, nil},
		{"array, keys in any order, nested values", "", `[ {"a":{"x":[1,"]"]},"b":null} , {"b":"\"}","a":-1.5e3} ]`, nil,
			`[ {"a":{"x":[1,"]"]},"b":null} , {"b":"\"}","a":-1.5e3} ]`, []string{"a", "b"}, 2, true, `{"a":{"x":[1,"]"]},"b":null}`, nil},
		{"array of empty objects", "", `[{},{}]`, nil, `[{},{}]`, []string{}, 2, true, `{}`, nil},
		{"array of null rows", "", `[null,null]`, nil, `[null,null]`, []string{}, 2, true, `null`, nil},
		{"empty array", "application/json", `[]`, nil, `[]`, nil, 0, true, ``, nil},
		{"columns override keys", "", `[{"a":1},{"b":2}]`, []string{"b", "a", "b"}, `[{"a":1},{"b":2}]`, []string{"a", "b"}, 2, true, `{"a":1}`, nil},
		{"form", "application/x-www-form-urlencoded", `name=J%C3%BCrg&qty=5&qty=6`, nil, `{"name":"Jürg","qty":"6"}`, []string{"name", "qty"}, 1, false, `{"name":"Jürg","qty":"6"}`, nil},
		{"csv", "text/csv", "name,note\nf,NULL\ng,\n\"h,\"\"i\"\"\",x\n", nil,
			`[["f",null],["g",""],["h,\"i\"","x"]]`, []string{"name", "note"}, 3, true, `{"name":"f","note":null}`, []string{"name", "note"}},
		{"csv header only", "text/csv", "name\n", nil, `[]`, []string{"name"}, 0, true, ``, []string{"name"}},
		{"csv column named twice: the last field", "text/csv", "b,a,b\n1,2,3\n", nil, `[["2","3"]]`, []string{"a", "b"}, 1, true, `{"a":"2","b":"3"}`, []string{"a", "b"}},
		{"csv escapes, CRLF, empty lines, quoted lines", "text/csv", "k,v\r\n\r\n\"a\r\nb\",\"\x01\\\t\xc3\xa9\"\r\n", nil,
			`[["a\nb","\u0001\\\té"]]`, []string{"k", "v"}, 1, true, `{"k":"a\nb","v":"\u0001\\\té"}`, []string{"k", "v"}},
	}
	for _, c := range cases {
		p, err := ParsePayload(c.contentType, []byte(c.body), c.columns)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(p.JSON) != c.wantJSON || !equalStrings(p.Keys, c.wantKeys) || (p.Keys == nil) != (c.wantKeys == nil) ||
			p.Rows != c.wantRows || p.Array != c.wantArray || string(p.First) != c.wantFirst ||
			p.Positional != (c.wantHeader != nil) || !equalStrings(p.Header, c.wantHeader) {
			t.Errorf("%s: got %s keys %v rows %d array %v first %s header %v; want %s %v %d %v %s %v", c.name,
				p.JSON, p.Keys, p.Rows, p.Array, p.First, p.Header, c.wantJSON, c.wantKeys, c.wantRows, c.wantArray, c.wantFirst, c.wantHeader)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParsePayloadErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contentType, body string
		status                  int
		code, message           string
	}{
		{"empty", "", "", 400, "SVC102", "Empty or invalid json"},
		{"malformed", "", `{"a":`, 400, "SVC102", "Empty or invalid json"},
		{"string holding json", "", `"{\"a\":1}"`, 400, "SVC102", "Empty or invalid json"},
		{"number", "", `42`, 400, "SVC102", "Empty or invalid json"},
		{"array of scalars", "", `[1,2]`, 400, "SVC102", "All object keys must match"},
		{"non-uniform keys", "", `[{"a":1},{"b":2}]`, 400, "SVC102", "All object keys must match"},
		{"a key fewer", "", `[{"a":1,"b":1},{"b":2}]`, 400, "SVC102", "All object keys must match"},
		{"a key more", "", `[{"a":1},{"a":2,"b":2}]`, 400, "SVC102", "All object keys must match"},
		{"a key repeated instead of another", "", `[{"a":1,"b":1},{"a":2,"a":2}]`, 400, "SVC102", "All object keys must match"},
		{"null after a row with keys", "", `[{"a":1},null]`, 400, "SVC102", "All object keys must match"},
		{"a scalar row", "", `[{"a":1},"{}"]`, 400, "SVC102", "All object keys must match"},
		{"an array row", "", `[[]]`, 400, "SVC102", "All object keys must match"},
		{"csv ragged", "text/csv", "a,b\n1\n", 400, "SVC102", "All lines must have same number of fields"},
		{"csv bad quote", "text/csv", "a\n\"x\"y\n", 400, "SVC102", "Invalid CSV"},
		{"csv empty", "text/csv", "", 400, "SVC102", "Invalid CSV"},
		{"csv a field more", "text/csv", "a,b\n1,2,3\n", 400, "SVC102", "All lines must have same number of fields"},
		{"csv header too long", "text/csv", strings.Repeat("a,", maxCSVColumns) + "a\n", 400, "SVC102", "Invalid CSV"},
		{"unknown type", "text/plain", "x", 415, "SVC107", "Content-Type not acceptable: text/plain"},
		{"bad type", "a/b/c;;", "x", 415, "SVC107", "Content-Type not acceptable: a/b/c;;"},
	}
	for _, c := range cases {
		_, err := ParsePayload(c.contentType, []byte(c.body), nil)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != c.status || e.Code != c.code || e.Message != c.message {
			t.Errorf("%s: got %v, want %d %s %q", c.name, err, c.status, c.code, c.message)
		}
	}
}

// BenchmarkParsePayloadBulk measures the Go side of a 10,000-row insert.
func BenchmarkParsePayloadBulk(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 10000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"item":%d,"note":"bulk row %d"}`, i, i)
	}
	sb.WriteByte(']')
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := ParsePayload("application/json", body, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParsePayloadRow measures the Go side of a one-row insert, the
// load benchmark's.
func BenchmarkParsePayloadRow(b *testing.B) {
	body := []byte(`{"book_id":123456,"rating":4,"body":"load test"}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePayload("application/json", body, nil); err != nil {
			b.Fatal(err)
		}
	}
}
