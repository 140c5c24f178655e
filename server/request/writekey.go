package request

import (
	"encoding/binary"
	"net/http"
	"net/url"
	"strings"
)

// WriteKey appends to dst the shape of a write of target (a relation)
// with body p: what Parse reads of r (its method, its query string whole,
// the headers it reads) and the body's Content-Type, and of the body what
// planning a write takes from it besides its values: its form and its
// keys. Two writes with one key parse, plan and build to the same
// statement but for the body, bound whole (query.Statement.WriteShape);
// unlike a Template, the query string's values are part of the key.
func WriteKey(dst []byte, r *http.Request, target string, p *Payload) []byte {
	dst = appendText(dst, r.Method)
	dst = appendText(dst, target)
	dst = appendText(dst, r.URL.RawQuery)
	dst = appendHeaders(dst, r.Header)
	dst = appendText(dst, r.Header.Get("Content-Type"))
	form := byte(0)
	if p.Array {
		form |= 1
	}
	if p.Positional {
		form |= 2
	}
	dst = append(dst, form)
	dst = binary.AppendUvarint(dst, uint64(len(p.Keys)))
	for _, k := range p.Keys {
		dst = appendText(dst, k)
	}
	return dst
}

// WriteShape returns a request holding copies of what WriteKey reads of r
// and of target, and of p, with p's values left out: planned, it makes the
// plan r and p make, sharing no memory with them, for a shape kept after
// its request is gone. The texts it copies are at most as long as the key.
func WriteShape(r *http.Request, target string, p *Payload) (*http.Request, string, *Payload) {
	h := make(http.Header, len(parsedHeaders)+1)
	for _, name := range append(parsedHeaders[:], "Content-Type") {
		if vs := r.Header[name]; vs != nil {
			h[name] = cloneTexts(vs)
		}
	}
	shape := &http.Request{Method: r.Method, Header: h,
		URL: &url.URL{Path: "/" + target, RawQuery: strings.Clone(r.URL.RawQuery)}}
	body := &Payload{Positional: p.Positional, Header: cloneTexts(p.Header), Keys: cloneTexts(p.Keys),
		Array: p.Array, Rows: p.Rows}
	return shape, strings.Clone(target), body
}

// cloneTexts copies texts and each of its strings; nil stays nil.
func cloneTexts(texts []string) []string {
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = strings.Clone(s)
	}
	return out
}
