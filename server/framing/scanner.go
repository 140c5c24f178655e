// Package framing notices a request framed two ways, with both
// Content-Length and Transfer-Encoding, so that the HTTP servers close
// its connection once it is answered.
//
// RFC 9112 section 6.1: a server that processes such a request by its
// Transfer-Encoding, as net/http's parser does, must close the connection
// after responding. A proxy in front that framed the same bytes by their
// Content-Length would otherwise take part of the body for the next
// request on the connection, or the next request for part of the body
// (request smuggling). net/http's parser drops the Content-Length of a
// chunked request before anyone sees it, so the Scanner reads the bytes
// the parser reads, as they arrive, and notes the header sections that
// hold both fields. SVC's own server (server/http1) runs every read
// through one; net/http's runs behind Server.
package framing

import (
	"bytes"
	"sync/atomic"
)

// The field names whose lines the Scanner looks for; header is as long
// as the longer.
const (
	contentLength    = "content-length:"
	transferEncoding = "transfer-encoding:"
)

// Scanner follows the bytes a client sends on one connection, line by
// line. Between two blank lines (a header section ends at one, and has
// none inside) it notes a line that starts with "Content-Length:" and one
// that starts with "Transfer-Encoding:", in any case: the only lines a
// parser reads as those fields. It reads no framing, so body bytes are
// scanned too: a body whose own lines look like both fields makes a false
// alarm, which costs the client a new connection, never a missed request
// framed both ways. Scan is called by one reader at a time; Conflicted
// may be called meanwhile from elsewhere.
type Scanner struct {
	head    [len(transferEncoding)]byte // the start of the line being read
	headLen int
	sawCL   bool // since the last blank line
	sawTE   bool
	// conflict stays set once a section held both fields: every answer
	// from then on closes the connection.
	conflict atomic.Bool
}

// Scan follows p, the next bytes read from the connection.
func (s *Scanner) Scan(p []byte) {
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n')
		line := p
		if end >= 0 {
			line = p[:end]
		}
		if s.headLen < len(s.head) {
			s.headLen += copy(s.head[s.headLen:], line)
		}
		if end < 0 {
			return
		}
		s.endLine()
		p = p[end+1:]
	}
}

// endLine notes the line whose start head holds, now that it has ended.
// A line may end in CRLF or in a bare LF: net/http's parser takes both.
func (s *Scanner) endLine() {
	h := s.head[:s.headLen]
	s.headLen = 0
	switch {
	case len(h) == 0 || len(h) == 1 && h[0] == '\r':
		s.sawCL, s.sawTE = false, false
		return
	case hasPrefixFold(h, contentLength):
		s.sawCL = true
	case hasPrefixFold(h, transferEncoding):
		s.sawTE = true
	default:
		return
	}
	if s.sawCL && s.sawTE {
		s.conflict.Store(true)
	}
}

// Conflicted reports whether a request framed both ways has come on the
// connection: its answer, and any after it, must close the connection.
func (s *Scanner) Conflicted() bool { return s.conflict.Load() }

// hasPrefixFold reports whether b starts with lower, ASCII case ignored.
func hasPrefixFold(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
