package request

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
)

// Payload is a write's body, normalised to a JSON array of objects whatever
// the content type it came in, so one statement shape serves them all.
type Payload struct {
	// JSON is the array of row objects.
	JSON []byte
	// Keys are the columns the rows set, sorted: columns= when given (rows
	// may then lack some), otherwise the keys every row has.
	Keys []string
	// Array reports a bulk body: a JSON array or CSV (a JSON object or a
	// form is one row).
	Array bool
	// Rows is the number of rows.
	Rows int
}

// ParsePayload reads a write body of the given Content-Type. columns is the
// columns= parameter, nil when absent.
func ParsePayload(contentType string, body []byte, columns []string) (*Payload, error) {
	media := "application/json"
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, apierr.UnsupportedContentType(contentType)
		}
		media = mt
	}
	var p *Payload
	var err error
	switch media {
	case "application/json":
		p, err = jsonPayload(body, columns == nil)
	case "application/x-www-form-urlencoded":
		p, err = formPayload(body)
	case "text/csv":
		p, err = csvPayload(body)
	default:
		return nil, apierr.UnsupportedContentType(contentType)
	}
	if err != nil {
		return nil, err
	}
	if columns != nil {
		p.Keys = slices.Sorted(slices.Values(columns))
		p.Keys = slices.Compact(p.Keys)
	}
	return p, nil
}

// errInvalidJSON is PostgREST's message for any body that is not rows.
const errInvalidJSON = "Empty or invalid json"

// jsonPayload checks a JSON body: an object or an array of objects; with
// uniform set, every object must have the same keys.
func jsonPayload(body []byte, uniform bool) (*Payload, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || !json.Valid(trimmed) {
		return nil, apierr.InvalidBody(errInvalidJSON, "")
	}
	p := &Payload{}
	switch trimmed[0] {
	case '{':
		var row map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &row); err != nil {
			return nil, apierr.InvalidBody(errInvalidJSON, err.Error())
		}
		p.Keys = sortedKeys(row)
		p.JSON = append(append([]byte{'['}, trimmed...), ']')
		p.Rows = 1
		return p, nil
	case '[':
		var rows []json.RawMessage
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return nil, apierr.InvalidBody(errInvalidJSON, err.Error())
		}
		p.Array, p.Rows, p.JSON = true, len(rows), trimmed
		for i, raw := range rows {
			var row map[string]json.RawMessage
			if err := json.Unmarshal(raw, &row); err != nil {
				// PostgREST's wording: a non-object has no keys to match.
				return nil, apierr.InvalidBody("All object keys must match", "")
			}
			keys := sortedKeys(row)
			if i == 0 {
				p.Keys = keys
			} else if uniform && !slices.Equal(keys, p.Keys) {
				return nil, apierr.InvalidBody("All object keys must match", "")
			}
		}
		return p, nil
	}
	// A scalar, or a string holding JSON: rows must be sent as objects.
	return nil, apierr.InvalidBody(errInvalidJSON, "the body must be a JSON object or an array of objects")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// formPayload turns application/x-www-form-urlencoded into one row of
// strings; a repeated key keeps its last value. The body is split as a
// query string is (appendPairs), so no pair is dropped.
func formPayload(body []byte) (*Payload, error) {
	return formRow(body, false)
}

// ParseCallForm reads a function call's form body: as a row, except that
// a repeated key gives an array, as a variadic argument needs.
func ParseCallForm(body []byte) (*Payload, error) {
	return formRow(body, true)
}

func formRow(body []byte, repeatedAsArray bool) (*Payload, error) {
	pairs, perr := appendPairs(nil, string(body))
	if perr != nil {
		return nil, apierr.InvalidBody("Invalid form data", perr.Error())
	}
	row := make(map[string]any, len(pairs))
	for _, p := range pairs {
		prev, seen := row[p.Key]
		switch {
		case !seen || !repeatedAsArray:
			row[p.Key] = p.Value
		case isString(prev):
			row[p.Key] = []string{prev.(string), p.Value}
		default:
			row[p.Key] = append(prev.([]string), p.Value)
		}
	}
	js, _ := json.Marshal([]map[string]any{row})
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return &Payload{JSON: js, Keys: keys, Rows: 1}, nil
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// csvPayload turns CSV with a header line into rows: an empty field is the
// empty string, NULL is null.
func csvPayload(body []byte) (*Payload, error) {
	r := csv.NewReader(bytes.NewReader(body))
	header, err := r.Read()
	if err != nil {
		return nil, apierr.InvalidBody("Invalid CSV", "the body needs a header line naming the columns")
	}
	var rows []map[string]*string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, csv.ErrFieldCount) {
			return nil, apierr.InvalidBody("All lines must have same number of fields", "")
		}
		if err != nil {
			return nil, apierr.InvalidBody("Invalid CSV", strings.TrimPrefix(err.Error(), "record on "))
		}
		row := make(map[string]*string, len(header))
		for i, name := range header {
			if rec[i] != "NULL" {
				row[name] = &rec[i]
			} else {
				row[name] = nil
			}
		}
		rows = append(rows, row)
	}
	js, _ := json.Marshal(rows)
	if rows == nil {
		js = []byte("[]")
	}
	keys := slices.Clone(header)
	slices.Sort(keys)
	return &Payload{JSON: js, Keys: slices.Compact(keys), Array: true, Rows: len(rows)}, nil
}
