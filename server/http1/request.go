package http1

import (
	"net"
	"net/http"

	"github.com/svc-dev/svc/server/framing"
	"golang.org/x/net/http/httpguts"
)

// unlimited is connReader's remain once a request's headers are read.
const unlimited = 1<<63 - 1

// connReader is what the connection's bufio.Reader reads from: rwc,
// bounded to remain bytes while headers are read (so a client cannot
// send endless headers), and first the bytes the watcher read ahead while
// waiting for the client to leave. Everything it serves passes scan,
// which notes a request framed two ways (see response.decideConnection).
type connReader struct {
	rwc    net.Conn
	scan   framing.Scanner
	remain int64
	// ahead[aheadOff:] are bytes the watcher read that are still to be
	// served: they came after everything the bufio.Reader holds, and
	// before anything still in the socket.
	ahead    []byte
	aheadOff int
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.remain <= 0 {
		return 0, errHeaderLimit
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	if r.aheadOff < len(r.ahead) {
		n := copy(p, r.ahead[r.aheadOff:])
		r.aheadOff += n
		r.remain -= int64(n)
		if r.aheadOff == len(r.ahead) {
			r.dropAhead()
		}
		r.scan.Scan(p[:n])
		return n, nil
	}
	n, err := r.rwc.Read(p)
	r.remain -= int64(n)
	r.scan.Scan(p[:n])
	return n, err
}

// keptAheadBytes is the largest read-ahead buffer a connection keeps once
// served, for the next request's watch; a larger one is let go, so an
// idle connection holds no more.
const keptAheadBytes = 4 << 10

// dropAhead empties the read-ahead buffer.
func (r *connReader) dropAhead() {
	if cap(r.ahead) > keptAheadBytes {
		r.ahead = nil
	}
	r.ahead, r.aheadOff = r.ahead[:0], 0
}

type headerLimitError struct{}

func (headerLimitError) Error() string { return "http1: request headers too large" }

var errHeaderLimit error = headerLimitError{}

// checkRequest applies the checks net/http's server makes beyond
// http.ReadRequest's parsing. A non-zero status refuses the request.
// fieldsValid says the header's names and values are known valid already
// (parseHead admits no other), so they are not checked again.
func checkRequest(req *http.Request, fieldsValid bool) (int, string) {
	if req.ProtoMajor != 1 {
		return http.StatusHTTPVersionNotSupported, "unsupported protocol version"
	}
	// http.ReadRequest has moved Host to req.Host (and refused two).
	if req.ProtoAtLeast(1, 1) && req.Host == "" && req.Method != http.MethodConnect {
		return http.StatusBadRequest, "missing required Host header"
	}
	if !validHost(req.Host) {
		return http.StatusBadRequest, "malformed Host header"
	}
	if !validTarget(req) {
		return http.StatusBadRequest, "invalid request target"
	}
	if fieldsValid {
		return 0, ""
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return http.StatusBadRequest, "invalid header name"
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return http.StatusBadRequest, "invalid header value"
			}
		}
	}
	return 0, ""
}

// validTarget holds the request target to RFC 9112 section 3.2 where
// http.ReadRequest is laxer: the asterisk form is OPTIONS's alone; the
// authority form asks for a tunnel, which no origin server gives; the
// absolute form names an http or https URI (url.Parse has lowered the
// scheme); and every byte is ASCII, which a URI is. One pass over the
// target's bytes, no allocation: it runs for every request.
func validTarget(req *http.Request) bool {
	uri := req.RequestURI
	if len(uri) > 0 && uri[0] != '/' {
		switch {
		case uri == "*":
			return req.Method == http.MethodOptions
		case req.URL.Scheme == "":
			return false // the authority form, CONNECT's
		case req.URL.Scheme != "http" && req.URL.Scheme != "https":
			return false
		}
	}
	for i := 0; i < len(uri); i++ {
		if uri[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validHost reports whether h holds only the bytes a host, port, IPv6
// literal or percent-escape may, as net/http's server requires.
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		b := h[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
			continue
		}
		switch b {
		case '!', '$', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', ':', ';', '=', '[', ']', '_', '~':
			continue
		}
		return false
	}
	return true
}
