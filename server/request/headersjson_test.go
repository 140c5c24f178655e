package request

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// headersJSONByHeader is the plain form of headersJSON for one header:
// its name lowered, its values joined, each escaped by ranging over runes.
// headersJSON writes the same bytes without lowering and joining apart.
func headersJSONByHeader(name string, values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for _, s := range []string{strings.ToLower(name), strings.Join(values, ", ")} {
		if b.Len() > 1 {
			b.WriteByte(':')
		}
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&0xf])
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// randomText draws text from pieces that each need a different treatment:
// plain ASCII, quotes and backslashes, control bytes, DEL, multi-byte
// UTF-8 (U+FFFD's own encoding among it), and bytes that are not UTF-8.
func randomText(rng *rand.Rand) string {
	pieces := []string{"a", "Bearer eyJ", " ", `"`, `\`, "\x00", "\x1f", "\t", "\x7f", "é", "€", "𝄞", "\uFFFD",
		"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "Z", "-"}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func TestHeadersJSONMatchesPlainForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		name := randomText(rng)
		values := make([]string, 1+rng.IntN(3))
		for i := range values {
			values[i] = randomText(rng)
		}
		got := HeadersJSON(http.Header{name: values}, "")
		if want := headersJSONByHeader(name, values); got != want {
			t.Fatalf("HeadersJSON(%q: %q)\n got %q\nwant %q", name, values, got, want)
		}
		var v map[string]string
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("HeadersJSON(%q: %q) = %q, not JSON: %v", name, values, got, err)
		}
	}
}

func TestHeadersJSONHoldsEveryHeader(t *testing.T) {
	h := http.Header{"Accept": {"application/json"}, "X-Many": {"a", "b\"c"}, "Content-Type": {"text/csv"}}
	var got map[string]string
	if err := json.Unmarshal([]byte(HeadersJSON(h, "")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"accept": "application/json", "x-many": `a, b"c`, "content-type": "text/csv"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	if s := HeadersJSON(http.Header{}, ""); s != "{}" {
		t.Errorf("no headers: got %q", s)
	}
}

func BenchmarkHeadersJSON(b *testing.B) {
	h := http.Header{"Accept": {"application/json"}, "User-Agent": {"wrk"},
		"Content-Type": {"application/json"}, "Authorization": {"Bearer " + strings.Repeat("x", 300)}}
	b.ReportAllocs()
	for b.Loop() {
		HeadersJSON(h, "127.0.0.1:3000")
	}
}

// TestHeadersJSONEmpty holds a request without headers or host (an
// HTTP/1.0 one may have none) to an empty object, bound without building.
func TestHeadersJSONEmpty(t *testing.T) {
	for _, h := range []http.Header{nil, {}} {
		if got := HeadersJSON(h, ""); got != "{}" {
			t.Errorf("HeadersJSON(%#v) = %q, want {}", h, got)
		}
	}
}

// TestHeadersJSONHostAndCookie holds request.headers to PostgREST 12's
// members: the request's host is one of them (SQL that tells tenants apart
// by it reads "host"), and the Cookie header is not, its values being
// request.cookies. A Host or Cookie entry in the map, however spelt, gives
// no member of its own.
func TestHeadersJSONHostAndCookie(t *testing.T) {
	for _, c := range []struct {
		name   string
		h      http.Header
		host   string
		want   map[string]string
		render string // the exact text, where it is one
	}{
		{"host alone", nil, "api.example.com", map[string]string{"host": "api.example.com"}, `{"host":"api.example.com"}`},
		{"host with others", http.Header{"Accept": {"text/csv"}}, "h:8080",
			map[string]string{"host": "h:8080", "accept": "text/csv"}, ""},
		{"cookie left out", http.Header{"Cookie": {"a=b"}, "X-Tenant": {"t1"}}, "h",
			map[string]string{"host": "h", "x-tenant": "t1"}, ""},
		{"cookie alone", http.Header{"Cookie": {"a=b"}}, "", map[string]string{}, "{}"},
		{"a map's own Host and cookie entries", http.Header{"Host": {"other"}, "host": {"other"}, "cookie": {"a=b"}}, "h",
			map[string]string{"host": "h"}, `{"host":"h"}`},
		{"host escaped", nil, "a\"b", map[string]string{"host": `a"b`}, `{"host":"a\"b"}`},
	} {
		got := HeadersJSON(c.h, c.host)
		var v map[string]string
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("%s: %q is not JSON: %v", c.name, got, err)
		}
		if len(v) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, v, c.want)
		}
		for k, want := range c.want {
			if v[k] != want {
				t.Errorf("%s: %s: got %q, want %q", c.name, k, v[k], want)
			}
		}
		if c.render != "" && got != c.render {
			t.Errorf("%s: rendered %q, want %q", c.name, got, c.render)
		}
	}
}
