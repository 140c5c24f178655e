package request

import (
	"encoding/binary"
	"net/http"
	"net/url"
	"strings"
)

// WriteKey appends to dst the shape of a write of target (a relation)
// with body p: its head's (WriteHead) and its body's (WriteBodyKey). Two
// writes with one key parse, plan and build to the same statement but
// for the body, bound whole (query.Statement.WriteShape); unlike a
// Template, the query string's values are part of the key.
func WriteKey(dst []byte, r *http.Request, target string, p *Payload) []byte {
	return WriteBodyKey(WriteHead(dst, r, target), p)
}

// WriteHead appends to dst the shape of the head of a write of target:
// what Parse reads of r (its method, its query string whole, the headers
// it reads) and the body's Content-Type. Two writes with one head parse to
// the same request. Every text is written with its length, so no head is
// the whole key of a write (WriteKey), and the two can be kept side by
// side.
func WriteHead(dst []byte, r *http.Request, target string) []byte {
	dst = appendText(dst, r.Method)
	dst = appendText(dst, target)
	dst = appendText(dst, r.URL.RawQuery)
	dst = appendHeaders(dst, r.Header)
	return appendText(dst, FieldValue(r.Header, "Content-Type"))
}

// WriteBodyKey appends to dst, a write's head, what planning a write takes
// from its body p besides its values: its form and its keys.
func WriteBodyKey(dst []byte, p *Payload) []byte {
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

// WriteShape returns a request holding copies of what WriteHead reads of
// r, and of target: parsed, it makes the request r makes, sharing no
// memory with it, for a shape kept after its request is gone. The texts it
// copies are at most as long as the head.
func WriteShape(r *http.Request, target string) (*http.Request, string) {
	h := make(http.Header, len(parsedHeaders)+1)
	for _, name := range append(parsedHeaders[:], "Content-Type") {
		if vs := r.Header[name]; vs != nil {
			h[name] = cloneTexts(vs)
		}
	}
	shape := &http.Request{Method: r.Method, Header: h,
		URL: &url.URL{Path: "/" + target, RawQuery: strings.Clone(r.URL.RawQuery)}}
	return shape, strings.Clone(target)
}

// Shape returns a copy of p with its values left out: what planning reads
// of it, sharing no memory with it.
func (p *Payload) Shape() *Payload {
	return &Payload{Positional: p.Positional, Header: cloneTexts(p.Header), Keys: cloneTexts(p.Keys),
		Array: p.Array, Rows: p.Rows}
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
