package request

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
)

// maxCSVColumns bounds a CSV header: PostgreSQL's most columns in a
// table. A longer header could only name columns no table has, and
// refusing it before reading on keeps the header's names, the one part
// of a CSV body held per field, small.
const maxCSVColumns = 1600

// csvPayload turns CSV with a header line into positional rows: a JSON
// array of arrays, the header sent once beside it (Payload.Header). An
// empty field is the empty string, NULL is null. A column named twice
// takes its last field, as PostgREST's row objects do.
//
// It reads the body twice: once to check it and measure the JSON it
// makes, once to write that JSON into a buffer of exactly its size; no
// field is copied but quoted ones, into one reused buffer. A field costs
// at most a few bytes more as JSON than as CSV (quotes, a separator,
// escapes), so the result stays within a small multiple of the body
// however short the fields or long the column names.
func csvPayload(body []byte) (*Payload, error) {
	if err := csvUTF8(body); err != nil {
		return nil, err
	}
	s := csvScan{src: body}
	var header []string
	_, err := s.record(func(i int, v []byte) bool {
		header = append(header, string(v))
		return len(header) <= maxCSVColumns
	})
	if len(header) > maxCSVColumns {
		return nil, apierr.InvalidBody("Invalid CSV", fmt.Sprintf("the header names more than %d columns", maxCSVColumns))
	}
	if err != nil {
		return nil, apierr.InvalidBody("Invalid CSV", "the body needs a header line naming the columns")
	}
	keep := make([]bool, len(header)) // of each name, the last field
	var names []string
	for i, name := range header {
		if keep[i] = !slices.Contains(header[i+1:], name); keep[i] {
			names = append(names, name)
		}
	}

	size, rows, err := csvMeasure(s, keep)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1, size)
	out[0] = '['
	var first []byte
	for row := range rows {
		if row > 0 {
			out = append(out, ',')
		}
		out = append(out, '[')
		kept := 0
		s.record(func(i int, v []byte) bool {
			if !keep[i] {
				return true
			}
			if kept > 0 {
				out = append(out, ',')
			}
			out = appendCSVField(out, v)
			if row == 0 {
				first = append(first, '{')
				if kept > 0 {
					first[len(first)-1] = ','
				}
				first = appendJSONString(first, []byte(header[i]))
				first = append(first, ':')
				first = appendCSVField(first, v)
			}
			kept++
			return true
		})
		out = append(out, ']')
	}
	out = append(out, ']')
	if rows > 0 {
		first = append(first, '}')
	}
	keys := slices.Sorted(slices.Values(names))
	return &Payload{JSON: out, Positional: true, Header: names, Keys: keys, Array: true, Rows: rows, First: first}, nil
}

// csvUTF8 refuses a body that is not UTF-8, naming the line and column
// (in bytes, as encoding/csv counts them) of its first stray byte. Its
// fields become JSON strings, which hold text only: PostgREST refuses
// such a body too, and replacing the bytes would store other text than
// the client sent, as JSON and form bodies never do.
func csvUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	at := 0
	for at < len(body) {
		r, n := utf8.DecodeRune(body[at:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		at += n
	}
	line := 1 + bytes.Count(body[:at], []byte{'\n'})
	col := at - bytes.LastIndexByte(body[:at], '\n')
	return apierr.InvalidBody("Invalid CSV", fmt.Sprintf("line %d, column %d: the body is not UTF-8 (byte 0x%02x)", line, col, body[at]))
}

// csvMeasure checks every line after the header and returns the size of
// the JSON array csvPayload makes of them and their number; s is a copy,
// so the caller reads the same lines again.
func csvMeasure(s csvScan, keep []bool) (size, rows int, err error) {
	size = 2 // the brackets around the rows
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	for {
		n, err := s.record(func(i int, v []byte) bool {
			if i < len(keep) && keep[i] {
				size += csvFieldSize(v)
			}
			return true
		})
		switch {
		case err == io.EOF:
			return size, rows, nil
		case err != nil:
			return 0, 0, apierr.InvalidBody("Invalid CSV", err.Error())
		case n != len(keep):
			return 0, 0, apierr.InvalidBody("All lines must have same number of fields", "")
		}
		if rows > 0 {
			size++ // ","
		}
		size += 2 + max(kept-1, 0) // the row's brackets and commas
		rows++
	}
}

// csvScan reads CSV as encoding/csv does with its defaults (so PostgREST's
// dialect: no trimming, strict quotes, \r\n read as \n, empty lines
// skipped), with its error texts, but field by field over the body
// itself rather than a record at a time: a line of a million fields costs
// nothing more than a line of three.
type csvScan struct {
	src     []byte
	off     int    // the first byte not yet read
	line    int    // lines read so far
	scratch []byte // a quoted field's contents, unquoted
}

// readLine returns the next line without its end: "\n", "\r\n" read as
// "\n", or a final "\r" dropped, as encoding/csv does. nl reports a line
// end; io.EOF means there is no line left.
func (s *csvScan) readLine() (line []byte, nl bool, err error) {
	if s.off >= len(s.src) {
		return nil, false, io.EOF
	}
	s.line++
	rest := s.src[s.off:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		s.off = len(s.src)
		return bytes.TrimSuffix(rest, []byte{'\r'}), false, nil
	}
	s.off += i + 1
	return bytes.TrimSuffix(rest[:i], []byte{'\r'}), true, nil
}

// csvError is encoding/csv's ParseError text for a parse error, less its
// "record on " prefix, as PostgREST's details show it.
func csvError(start, line, col int, quoted bool) error {
	what := `bare " in non-quoted-field`
	if quoted {
		what = `extraneous or missing " in quoted-field`
	}
	at := "parse error on line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ": " + what
	if start != line {
		at = "line " + strconv.Itoa(start) + "; " + at
	}
	return fmt.Errorf("%s", at)
}

// record reads the next record and calls field with each field's index
// and contents, valid only during the call; field returns false to stop
// reading (the record is then incomplete). It returns the number of
// fields, or io.EOF when no record is left. Errors name lines and
// columns as encoding/csv does.
func (s *csvScan) record(field func(i int, v []byte) bool) (int, error) {
	var line []byte
	var nl bool
	for {
		var err error
		if line, nl, err = s.readLine(); err != nil {
			return 0, err
		}
		if len(line) > 0 {
			break
		}
	}
	start, n, col := s.line, 0, 1
	for {
		if len(line) == 0 || line[0] != '"' {
			i := bytes.IndexByte(line, ',')
			v := line
			if i >= 0 {
				v = line[:i]
			}
			if j := bytes.IndexByte(v, '"'); j >= 0 {
				return n, csvError(start, s.line, col+j, false)
			}
			n++
			if !field(n-1, v) || i < 0 {
				return n, nil
			}
			line, col = line[i+1:], col+i+1
			continue
		}
		// A quoted field, which may span lines.
		s.scratch = s.scratch[:0]
		line, col = line[1:], col+1
		at := s.line // the line the field has reached
		last := false
	quoted:
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				s.scratch = append(s.scratch, line[:i]...)
				line, col = line[i+1:], col+i+1
				switch {
				case len(line) == 0:
					last = true
					break quoted
				case line[0] == '"':
					s.scratch = append(s.scratch, '"')
					line, col = line[1:], col+1
				case line[0] == ',':
					line, col = line[1:], col+1
					break quoted
				default:
					return n, csvError(start, s.line, col-1, true)
				}
			case len(line) > 0 || nl:
				s.scratch = append(s.scratch, line...)
				col += len(line)
				if nl {
					s.scratch = append(s.scratch, '\n')
					col++
				}
				if line, nl, _ = s.readLine(); len(line) > 0 || nl {
					at, col = at+1, 1
				}
			default:
				return n, csvError(start, at, col, true)
			}
		}
		n++
		if !field(n-1, s.scratch) || last {
			return n, nil
		}
	}
}

// appendCSVField appends a field as JSON: null for NULL, else a string.
func appendCSVField(out, field []byte) []byte {
	if string(field) == "NULL" {
		return append(out, "null"...)
	}
	return appendJSONString(out, field)
}

// csvFieldSize is the length appendCSVField gives field.
func csvFieldSize(field []byte) int {
	if string(field) == "NULL" {
		return len("null")
	}
	return jsonStringSize(field)
}
