package request

import (
	"encoding/json"
	"slices"

	"github.com/svc-dev/svc/server/apierr"
)

// Payload is a write's body, in the form PostgreSQL reads its rows from,
// reached without building the rows in Go: a JSON body is checked in one
// pass over its bytes and sent as it came, a CSV body is converted once
// into JSON arrays. Neither makes an object per row, so what a body costs
// in memory grows with its size, not with its number of rows or keys
// (BenchmarkWriteBodyMemory in package server).
type Payload struct {
	// JSON holds the rows: one object when Array is false, an array of
	// objects, or with Positional an array of arrays.
	JSON []byte
	// Positional marks rows as arrays of strings and nulls, one element per
	// name of Header in that order (CSV): the column names are sent once,
	// not repeated in every row, so short values after long names do not
	// multiply the body.
	Positional bool
	// Header names the elements of positional rows; nil otherwise.
	Header []string
	// Keys are the columns the rows set, sorted: columns= when given (rows
	// may then lack some), otherwise the keys every row has.
	Keys []string
	// Array reports a bulk body: a JSON array or CSV (a JSON object or a
	// form is one row).
	Array bool
	// Rows is the number of rows.
	Rows int
	// First is the first row as a JSON object (or as the first element of
	// a JSON array holds it), nil when there are no rows: a function's
	// arguments, and the one row of a PATCH or PUT.
	First []byte
}

// ParsePayload reads a write body of the given Content-Type. columns is the
// columns= parameter, nil when absent.
func ParsePayload(contentType string, body []byte, columns []string) (*Payload, error) {
	media := "application/json"
	if contentType != "" {
		// Parameters it does not know are ignored, as in PostgREST.
		media = ParseMediaType(contentType).Type
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
	case "application/x-ndjson", "application/jsonl":
		p, err = linesPayload(body, columns == nil)
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

// formRow builds its one row as a map: a form is one row, and
// url.ParseQuery has made a map of it already.
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
	js, _ := json.Marshal(row)
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return &Payload{JSON: js, Keys: keys, Rows: 1, First: js}, nil
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
