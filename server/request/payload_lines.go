package request

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
)

// A JSON Lines body (application/x-ndjson, application/jsonl) is one row
// per line. It is read a batch of lines at a time, each batch a JSON
// array of those lines that the write's statement takes as it takes any
// bulk body, so that a body of any number of rows costs one batch of
// memory: svc-serve never holds the body whole, nor PostgreSQL the rows
// as one value. Blank lines are skipped; every row must have the keys
// the first one has (or columns= names them), as in a JSON array.

// IsJSONLines reports whether contentType names JSON Lines.
func IsJSONLines(contentType string) bool {
	switch ParseMediaType(contentType).Type {
	case "application/x-ndjson", "application/jsonl":
		return true
	}
	return false
}

// Lines reads a JSON Lines body a batch at a time.
type Lines struct {
	r *bufio.Reader
	// batch is the size a batch is closed at: it holds its lines up to
	// that size, and the line that crosses it.
	batch int
	// maxLine bounds one line, which is one row: a row may be as large
	// as a whole body of another media type may be.
	maxLine int
	columns []string
	// uniform is unset when rows need not have the same keys (columns=
	// names them).
	uniform bool
	// keys are the first row's, which every later one must have.
	keys    []string
	buf     []byte
	line    []byte
	started bool
	ended   bool
	// read counts the body's bytes so far.
	read int64
	// limits and ctx, of a body a request opened (WriteBody), say what a
	// failure to read means (Batch).
	limits BodyLimits
	ctx    context.Context
}

// NewLines reads the JSON Lines body r in batches of about batch bytes,
// each line at most maxLine bytes. columns is the columns= parameter,
// nil when absent.
func NewLines(r io.Reader, batch, maxLine int, columns []string) *Lines {
	return &Lines{r: bufio.NewReaderSize(r, 64<<10), batch: batch, maxLine: maxLine, columns: columns, uniform: columns == nil}
}

// ErrLineTooLarge is a line past NewLines' maxLine.
var ErrLineTooLarge = errors.New("a line of the body is larger than a whole body may be")

// Next returns the next batch as a bulk payload, or nil once the body has
// ended (the first call returns a payload, of no rows for an empty body).
// Its JSON is valid until the next call. A read error is returned as it
// is, for the caller to say what it means (a timeout, a limit).
func (l *Lines) Next() (*Payload, error) {
	if l.ended && l.started {
		return nil, nil
	}
	l.buf = append(l.buf[:0], '[')
	rows := 0
	for len(l.buf) < l.batch && !l.ended {
		line, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if rows > 0 {
			l.buf = append(l.buf, ',')
		}
		l.buf = append(l.buf, line...)
		rows++
	}
	l.buf = append(l.buf, ']')
	first := !l.started
	l.started = true
	if rows == 0 && !first {
		return nil, nil
	}
	p, err := jsonPayload(l.buf, l.uniform)
	if err != nil {
		return nil, err
	}
	switch {
	case l.columns != nil:
		p.Keys = slices.Compact(slices.Sorted(slices.Values(l.columns)))
	case !l.uniform:
	case first:
		l.keys = p.Keys
	case rows > 0 && !slices.Equal(p.Keys, l.keys):
		return nil, errKeysMismatch()
	}
	return p, nil
}

// More reports whether the body has more than the batches read so far.
func (l *Lines) More() bool { return !l.ended }

// Read is the number of the body's bytes read so far.
func (l *Lines) Read() int64 { return l.read }

// readLine reads one line, its newline included; at the body's end, what
// is left.
func (l *Lines) readLine() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.read += int64(len(chunk))
		if len(l.line)+len(chunk) > l.maxLine {
			return nil, ErrLineTooLarge
		}
		switch {
		case err == nil && len(l.line) == 0:
			return chunk, nil // the usual case: no copy
		case err == nil:
			return append(l.line, chunk...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.line = append(l.line, chunk...)
		case errors.Is(err, io.EOF):
			l.ended = true
			return append(l.line, chunk...), nil
		default:
			return nil, err
		}
	}
}

// linesPayload reads a JSON Lines body held whole (a PATCH's, a PUT's,
// or a POST's that ParsePayload reads): the body as one JSON array.
func linesPayload(body []byte, uniform bool) (*Payload, error) {
	l := NewLines(bytes.NewReader(body), len(body)+1, len(body)+1, nil)
	l.uniform = uniform
	p, err := l.Next()
	if err != nil {
		return nil, err // jsonPayload's: a bytes.Reader fails no read
	}
	p.JSON = slices.Clone(p.JSON)
	p.First = slices.Clone(p.First)
	return p, nil
}
