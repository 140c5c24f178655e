package request

import (
	"encoding/binary"
	"net/http"
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
