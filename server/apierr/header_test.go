package apierr

import "testing"

func TestHeaderFieldError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"X-Answer", "42", true},
		{"Set-Cookie", "a=b; Path=/", true},
		{"X-Tab", "a\tb", true},
		{"X-Utf8", "café", true}, // obs-text: bytes past 0x7f are allowed
		{"X-Empty", "", true},
		{"", "x", false},
		{"Bad Name", "x", false},
		{"X:Colon", "x", false},
		{"X-Nul", "a\x00b", false},
		{"X-Split", "a\r\nSet-Cookie: evil=1", false},
		{"X-Lf", "a\nb", false},
		{"X-Del", "a\x7fb", false},
		{"Content-Length", "0", false},
		{"content-length", "9999", false}, // names are compared without case
		{"Transfer-Encoding", "chunked", false},
		{"Connection", "close", false},
		{"Keep-Alive", "timeout=5", false},
		{"Proxy-Connection", "close", false},
		{"TE", "trailers", false},
		{"Trailer", "X-Sum", false},
		{"Upgrade", "h2c", false},
		{"Content-Type", "text/csv", true}, // the body's type is a function's to choose
		{"X-Content-Length", "5", true},
	} {
		if got := HeaderFieldError(c.name, c.value); (got == "") != c.ok {
			t.Errorf("HeaderFieldError(%q, %q) = %q, want ok %v", c.name, c.value, got, c.ok)
		}
	}
}
