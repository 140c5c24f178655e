package http1

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
)

// TestAppendHeaderMatchesNetHTTP holds appendHeader to what
// http.Header.Write writes for the same header: order, dropped names,
// line breaks and trimming; and a Date given apart to what it writes
// for the header holding it.
func TestAppendHeaderMatchesNetHTTP(t *testing.T) {
	many := http.Header{}
	for i := range 40 {
		many[fmt.Sprintf("X-Key-%02d", 39-i)] = []string{fmt.Sprint(i)}
	}
	for name, h := range map[string]http.Header{
		"empty":  {},
		"usual":  {"Content-Type": {"application/json; charset=utf-8"}, "Date": {"Sat, 28 Nov 2026 18:00:00 GMT"}, "Content-Range": {"0-0/*"}},
		"repeat": {"Vary": {"Accept", "Prefer"}, "Set-Cookie": {"a=1", "b=2"}},
		"breaks": {"X-A": {"one\r\ntwo", "\nthree\r", "a\rb"}, "X-B": {"  spaced \t"}, "X-C": {"", " "}},
		"names":  {"Bad Name": {"x"}, "Bad:Name": {"y"}, "": {"z"}, "Ok-Name": {"w"}, "Tab\tName": {"v"}},
		"many":   many,
	} {
		var want bytes.Buffer
		if err := h.Write(&want); err != nil {
			t.Fatal(err)
		}
		if got := appendHeader(nil, h, "", -1); string(got) != want.String() {
			t.Errorf("%s: wrote %q, net/http writes %q", name, got, want.String())
		}
		if _, ok := h["Date"]; ok {
			continue
		}
		const date = "Sun, 06 Dec 2026 20:00:00 GMT"
		dated := h.Clone()
		dated["Date"] = []string{date}
		want.Reset()
		if err := dated.Write(&want); err != nil {
			t.Fatal(err)
		}
		if got := appendHeader(nil, h, date, -1); string(got) != want.String() {
			t.Errorf("%s with a Date: wrote %q, net/http writes %q", name, got, want.String())
		}
		if _, ok := h["Content-Length"]; ok {
			continue
		}
		dated["Content-Length"] = []string{"1234"}
		want.Reset()
		if err := dated.Write(&want); err != nil {
			t.Fatal(err)
		}
		if got := appendHeader(nil, h, date, 1234); string(got) != want.String() {
			t.Errorf("%s with a Date and a length: wrote %q, net/http writes %q", name, got, want.String())
		}
	}
}

// TestAppendHeaderAllocates pins what writing a usual response header
// allocates into a buffer with room for it: nothing.
func TestAppendHeaderAllocates(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Date": {"Sat, 28 Nov 2026 18:00:00 GMT"}, "Content-Range": {"0-0/*"}}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf = appendHeader(buf[:0], h, "", 1234) }); n != 0 {
		t.Errorf("%v allocations a header, want 0", n)
	}
}

// BenchmarkAppendHeader renders the header of a lookup's answer, filled
// into a map cleared for each, as a connection's response reuses its.
func BenchmarkAppendHeader(b *testing.B) {
	h := make(http.Header, 8)
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		clear(h)
		h["Content-Location"] = []string{"/books?id=eq.5"}
		h["Content-Range"] = []string{"0-0/*"}
		h["Content-Type"] = []string{"application/json; charset=utf-8"}
		h["Range-Unit"] = []string{"items"}
		h["Vary"] = []string{"Accept, Prefer, Range"}
		buf = appendHeader(buf[:0], h, "Mon, 07 Dec 2026 04:40:23 GMT", 126)
	}
}
