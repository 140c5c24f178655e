package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Reading a request head with http.ReadRequest was a tenth of svc-serve's
// own work per request: a textproto reader, a string per line and per
// value, a URL parse and a copy of the request. Nearly every request is
// of one plain form and arrives whole in one read, so the head is parsed
// here when it is: one string for the head, the names and values cut
// from it. It parses only heads of which its result is certainly what
// http.ReadRequest makes of the same bytes (FuzzHeadAsReadRequest and
// FuzzComposedHeadAsReadRequest hold it to that); every other head goes
// to http.ReadRequest, whose defences against a request framed two ways
// stay whole: a transfer coding, a field repeated or folded, a bare LF,
// an escape in the path, HTTP/1.0, a method it does not know.

// readRequest reads the connection's next request head, whose first
// byte came at t0: parsed into c.head when it is plain and buffered
// whole, else by http.ReadRequest. A head buffered whole has no more to
// read, so only a head read on needs server-read-header-timeout's
// deadline set: one deadline less to set for most requests.
func (c *conn) readRequest(first bool, t0 time.Time) (*http.Request, error) {
	buf, _ := c.br.Peek(c.br.Buffered())
	c.parts = nil
	if n, parts := parseHead(buf, &c.head); n > 0 {
		c.parts = parts
		c.br.Discard(n)
		if c.head.ContentLength > 0 {
			c.fixed = fixedBody{r: c.br, remain: c.head.ContentLength}
			c.head.Body = &c.fixed
		} else {
			c.head.Body = http.NoBody
		}
		return &c.head, nil
	}
	if !first {
		// The idle timeout ends with the request's first byte.
		c.readDeadlineAfter(t0, c.srv.readHeaderTimeout())
	}
	if b, _ := c.br.Peek(1); len(b) == 1 && (b[0] == '\r' || b[0] == '\n') {
		// RFC 9112 section 2.2: a server SHOULD skip an empty line
		// before a request line; some clients send one after a
		// POST body. net/http skips one only after a POST. The
		// byte is buffered already (awaitRequest peeked it).
		peek, _ := c.br.Peek(4)
		c.br.Discard(leadingCRLF(peek))
	}
	return http.ReadRequest(c.br)
}

// parseHead parses into req the request head at the start of buf and
// returns its length, or 0, leaving req as it was, when buf holds no whole
// head of the plain form:
//
//	METHOD /path?query HTTP/1.1 CRLF
//	(Name: value CRLF)*
//	CRLF
//
// with a method net/http names, a path of bytes a URL path holds as
// they are (no escape), a query of visible ASCII, tokens for names,
// visible ASCII, spaces and tabs for values, each name once, and none of
// Transfer-Encoding, Trailer and Pragma, which http.ReadRequest acts on;
// of maxHeadLines lines at most. The request's Body is the caller's to
// set. It also returns what it allocated besides the head's text and
// header map, which holds the request's context to be.
func parseHead(buf []byte, req *http.Request) (int, *headParts) {
	// The lines are found in one pass over buf: where each ends, and the
	// empty line that ends the head. A line ended by LF alone, or a head
	// of more lines than a plain one has, is net/http's to read.
	var ends [maxHeadLines]int // the offset of each line's CR
	n, at := 0, 0
	for {
		i := bytes.IndexByte(buf[at:], '\n')
		if i < 0 {
			return 0, nil // not buffered whole
		}
		lf := at + i
		if lf == at || buf[lf-1] != '\r' {
			return 0, nil
		}
		if lf-1 == at {
			break // the empty line
		}
		if n == len(ends) {
			return 0, nil
		}
		ends[n] = lf - 1
		n++
		at = lf + 1
	}
	if n == 0 {
		return 0, nil
	}
	head := string(buf[:at]) // each line with its CRLF
	method, target, proto, ok := requestLine(head[:ends[0]])
	if !ok {
		return 0, nil
	}
	lines := n - 1
	parts := new(headParts)
	u := &parts.url
	u.Path = target
	if path, query, found := strings.Cut(target, "?"); found {
		u.Path, u.RawQuery = path, query
	}
	h := make(http.Header, lines)
	// One value each, cut from one array.
	values := parts.values[:min(lines, len(parts.values))]
	if lines > len(parts.values) {
		values = make([]string, lines)
	}
	contentLength, host, hosts, connection := int64(0), "", 0, ""
	// The names taken so far, to refuse a repeat: comparing a name with
	// a few others costs less than looking it up in the map, which
	// hashes it.
	var names [maxHeadLines]string
	for k := 1; k < n; k++ {
		name, value, ok := headerLine(head[ends[k-1]+2 : ends[k]])
		if !ok {
			return 0, nil
		}
		if slices.Contains(names[:k-1], name) {
			return 0, nil // net/http joins, checks or refuses repeats
		}
		names[k-1] = name
		switch name {
		case "Transfer-Encoding", "Trailer", "Pragma":
			return 0, nil
		case "Content-Length":
			if contentLength, ok = decimal(value); !ok {
				return 0, nil
			}
		case "Host":
			// http.ReadRequest moves it to Request.Host.
			if hosts++; hosts > 1 {
				return 0, nil
			}
			host = value
			continue
		case "Connection":
			connection = value
		}
		values[0] = value
		h[name], values = values[:1:1], values[1:]
	}
	*req = http.Request{Method: method, URL: u, Proto: proto, ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: contentLength, Host: host, RequestURI: target,
		Close: hasToken(connection, "close")}
	return at + 2, parts
}

// maxHeadLines bounds the lines of a head parseHead reads: a client's
// plain request has a dozen at most.
const maxHeadLines = 32

// headParts is what parseHead makes for a head besides its text and its
// header map, in one allocation: the URL, the values of a head of up to
// eight fields, and the context the request will run in (serveRequest),
// which would otherwise be an allocation of its own.
type headParts struct {
	url    url.URL
	values [8]string
	ctx    requestCtx
}

// plainMethods are the methods of a plain head: the ones an API request
// uses. Another is net/http's to read.
var plainMethods = [...]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch,
	http.MethodPut, http.MethodDelete, http.MethodOptions}

// requestLine splits a plain request line: a method net/http names, a
// target in origin form whose path no escape changes, and HTTP/1.1.
func requestLine(line string) (method, target, proto string, ok bool) {
	m, rest, _ := strings.Cut(line, " ")
	target, proto, _ = strings.Cut(rest, " ")
	if proto != "HTTP/1.1" {
		return "", "", "", false
	}
	for _, known := range plainMethods {
		if m == known {
			method = known
			break
		}
	}
	if method == "" {
		return "", "", "", false
	}
	if len(target) == 0 || target[0] != '/' || target[len(target)-1] == '?' {
		return "", "", "", false // a query mark ending the target sets ForceQuery
	}
	inQuery := false
	for i := 0; i < len(target); i++ {
		c := target[i]
		switch {
		case c == '?' && !inQuery:
			inQuery = true
		case inQuery && c > ' ' && c < 0x7f && c != '#':
		case !inQuery && pathByte(c):
		default:
			return "", "", "", false
		}
	}
	return method, target, proto, true
}

// pathByte reports whether url.URL keeps c in a path as it is: its
// unreserved bytes and the reserved ones it does not escape (RawPath is
// then empty). '%' is not one: an escape is for url.Parse to read.
func pathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', '/', ':', ';', '=', '@':
		return true
	}
	return false
}

// headerLine splits a plain header line into its name, canonical as
// net/http makes it, and its value without the spaces around it.
func headerLine(line string) (name, value string, ok bool) {
	name, value, found := strings.Cut(line, ":")
	if !found || name == "" {
		return "", "", false
	}
	canonical := true
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !httpguts.IsTokenRune(rune(c)) {
			return "", "", false // a space before the colon too
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if !canonical {
		name = http.CanonicalHeaderKey(name)
	}
	// Trimmed by hand: strings.Trim builds a set of its cutset's bytes
	// on every call.
	for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
		value = value[1:]
	}
	for len(value) > 0 && (value[len(value)-1] == ' ' || value[len(value)-1] == '\t') {
		value = value[:len(value)-1]
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' || c >= 0x7f) && c != '\t' {
			return "", "", false
		}
	}
	return name, value, true
}

// decimal reads a Content-Length of digits alone, as net/http does for
// those; anything else is net/http's to refuse.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	n := int64(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// fixedBody is the body of a request parsed by parseHead: Content-Length
// bytes from the connection's reader, read as net/http's body reads them.
type fixedBody struct {
	r      *bufio.Reader
	remain int64
	closed bool
}

func (b *fixedBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := b.r.Read(p)
	b.remain -= int64(n)
	switch {
	case err == io.EOF:
		err = io.ErrUnexpectedEOF // the client sent less than it said
	case err == nil && b.remain == 0:
		err = io.EOF
	}
	return n, err
}

// Close ends the body: later reads fail. What is left unread is the
// connection's to drain or not (requestBody.settle).
func (b *fixedBody) Close() error {
	b.closed = true
	return nil
}
