package request

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/svc-dev/svc/server/apierr"
)

// Bodies: read whole up to server-max-body-bytes, or, for an insert of
// JSON Lines, a batch at a time (Lines), and parsed by their
// Content-Type. Reading one is refused (413, 408, 400) here, before
// anything reaches the database; when to read it (once the role is known
// to be allowed the request) is the server's.

// BodyLimits are the configuration keys reading a body obeys.
type BodyLimits struct {
	// MaxBytes is server-max-body-bytes: a whole body, or one line of
	// JSON Lines.
	MaxBytes int
	// MaxLinesBytes is server-max-lines-body-bytes, a JSON Lines body in
	// all.
	MaxLinesBytes int
	// Batch is the size a batch of JSON Lines is closed at
	// (server-response-buffer-bytes).
	Batch int
	// ReadTimeout is server-read-timeout, the connection's deadline for
	// reading a request, and a JSON Lines batch's.
	ReadTimeout time.Duration
}

// firstBodyBuffer is where reading a body of declared length starts: a
// small body is read into one buffer of its size, a large one into
// buffers that double toward it.
const firstBodyBuffer = 64 << 10

// ReadBody reads r's body up to l.MaxBytes; a larger one is refused (413
// SVC102), at once when its Content-Length says so. The buffer grows
// toward the declared length only as bytes arrive, so a client that
// declares a large body and sends little holds little memory, and the
// body ends in a buffer of exactly its size.
func ReadBody(w http.ResponseWriter, r *http.Request, l BodyLimits) ([]byte, error) {
	limit := int64(l.MaxBytes)
	if r.ContentLength > limit {
		return nil, apierr.BodyTooLarge(l.MaxBytes)
	}
	var body []byte
	var err error
	if r.ContentLength > 0 {
		body, err = readDeclared(r.Body, int(r.ContentLength))
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	}
	if err == nil {
		return body, nil // before errors.As, whose targets cost an allocation each
	}
	var maxBytes *http.MaxBytesError
	switch {
	case errors.As(err, &maxBytes):
		return nil, apierr.BodyTooLarge(l.MaxBytes)
	case IsTimeout(err):
		// The connection's read deadline (server-read-timeout) passed
		// mid-body: nothing else sets one on a request's reads.
		return nil, apierr.BodyTimeout(l.ReadTimeout.Seconds())
	}
	return nil, apierr.InvalidBody("Request body unreadable", err.Error())
}

// readDeclared reads a body of n declared bytes, to its end: the server
// watches the connection for the client leaving only once the handler has
// seen the body's end (io.EOF), so the last read is one past the n bytes.
func readDeclared(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, firstBodyBuffer))
	for {
		if len(buf) == cap(buf) && cap(buf) < n {
			grown := make([]byte, len(buf), min(2*cap(buf), n))
			copy(grown, buf)
			buf = grown
		}
		var m int
		var err error
		if len(buf) < cap(buf) {
			m, err = r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+m]
		} else {
			var past [1]byte
			if m, err = r.Read(past[:]); m > 0 {
				return nil, errors.New("body longer than its Content-Length")
			}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// IsTimeout reports whether err is a read or write that ran past its
// deadline.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// WriteBody reads and parses the body of a write (POST, PATCH, PUT) to
// req's columns: whole, or for an insert of JSON Lines its first batch,
// and then the Lines that reads the rest (nil for a body read whole).
func WriteBody(w http.ResponseWriter, r *http.Request, req *Request, l BodyLimits) (*Payload, *Lines, error) {
	ct := FieldValue(r.Header, "Content-Type")
	if r.Method == http.MethodPost && IsJSONLines(ct) {
		return firstLines(w, r, req.Columns, l)
	}
	body, err := ReadBody(w, r, l)
	if err != nil {
		return nil, nil, err
	}
	p, err := ParsePayload(ct, body, req.Columns)
	return p, nil, err
}

// firstLines opens r's JSON Lines body and reads its first batch.
func firstLines(w http.ResponseWriter, r *http.Request, columns []string, l BodyLimits) (*Payload, *Lines, error) {
	if r.ContentLength > int64(l.MaxLinesBytes) {
		return nil, nil, apierr.BodyOverLimit(l.MaxLinesBytes, "server-max-lines-body-bytes")
	}
	body := http.MaxBytesReader(w, r.Body, int64(l.MaxLinesBytes))
	lines := NewLines(body, l.Batch, l.MaxBytes, columns)
	lines.limits, lines.ctx = l, r.Context()
	p, err := lines.Batch()
	if err != nil {
		return nil, lines, err
	}
	return p, lines, nil
}

// Batch is Next, with a failure to read said as what it means for the
// client: a body past its limits, a batch that did not arrive in time,
// the client gone (ErrClientGone), or unreadable.
func (l *Lines) Batch() (*Payload, error) {
	p, err := l.Next()
	var maxBytes *http.MaxBytesError
	var api *apierr.Error
	switch {
	case err == nil || errors.As(err, &api):
		return p, err
	case errors.As(err, &maxBytes):
		return nil, apierr.BodyOverLimit(l.limits.MaxLinesBytes, "server-max-lines-body-bytes")
	case errors.Is(err, ErrLineTooLarge):
		return nil, apierr.BodyTooLarge(l.limits.MaxBytes)
	case IsTimeout(err):
		return nil, apierr.BodyTimeout(l.limits.ReadTimeout.Seconds())
	case l.ctx != nil && l.ctx.Err() != nil:
		return nil, apierr.ErrClientGone
	}
	return nil, apierr.InvalidBody("Request body unreadable", err.Error())
}

// CallBody reads and parses the body of a POST call: its arguments, nil
// for a body of a type only a function taking the whole body as its one
// argument accepts (raw), and the body's media type. An empty JSON body
// calls a function without arguments.
func CallBody(w http.ResponseWriter, r *http.Request, l BodyLimits) (args *Payload, raw []byte, media string, err error) {
	media = "application/json"
	if raw, err = ReadBody(w, r, l); err != nil {
		return nil, nil, "", err
	}
	ct := FieldValue(r.Header, "Content-Type")
	if ct != "" {
		media = ParseMediaType(ct).Type
	}
	body := raw
	if len(bytes.TrimSpace(body)) == 0 && media == "application/json" {
		body = []byte("{}")
	}
	switch {
	case media == "application/x-www-form-urlencoded":
		args, err = ParseCallForm(body)
	case !rawBodyTypes[media]:
		args, err = ParsePayload(ct, body, nil)
	}
	return args, raw, media, err
}

// rawBodyTypes are the body types only a function taking the whole body
// as its one argument can accept.
var rawBodyTypes = map[string]bool{"application/octet-stream": true, "text/plain": true, "text/xml": true}
