package request

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
)

// csvByEncodingCSV is what a CSV body means, read record by record with
// encoding/csv into a map per row as SVC read it before csvScan: the
// reference csvPayload must agree with, rows and errors alike.
func csvByEncodingCSV(body []byte) (rows []map[string]*string, keys []string, errText string) {
	// A body that is not UTF-8 is refused before it is read, at its first
	// stray byte.
	for i, r := range string(body) {
		if _, n := utf8.DecodeRuneInString(string(body[i:])); r == utf8.RuneError && n == 1 {
			line := 1 + strings.Count(string(body[:i]), "\n")
			col := i + 1
			if nl := strings.LastIndex(string(body[:i]), "\n"); nl >= 0 {
				col = i - nl
			}
			return nil, nil, fmt.Sprintf("Invalid CSV: line %d, column %d: the body is not UTF-8 (byte 0x%02x)", line, col, body[i])
		}
	}
	r := csv.NewReader(bytes.NewReader(body))
	header, err := r.Read()
	if err != nil {
		return nil, nil, "Invalid CSV: the body needs a header line naming the columns"
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, csv.ErrFieldCount) {
			return nil, nil, "All lines must have same number of fields: <nil>"
		}
		if err != nil {
			return nil, nil, "Invalid CSV: " + strings.TrimPrefix(err.Error(), "record on ")
		}
		row := map[string]*string{}
		for i, name := range header {
			if rec[i] != "NULL" {
				row[name] = &rec[i]
			} else {
				row[name] = nil
			}
		}
		rows = append(rows, row)
	}
	keys = slices.Compact(slices.Sorted(slices.Values(header)))
	return rows, keys, ""
}

// checkCSVPayload compares csvPayload with csvByEncodingCSV on body.
func checkCSVPayload(t *testing.T, body []byte) {
	t.Helper()
	wantRows, wantKeys, wantErr := csvByEncodingCSV(body)
	if len(wantKeys) > maxCSVColumns {
		return // refused by the header's bound, which encoding/csv lacks
	}
	p, err := csvPayload(body)
	if err != nil {
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 {
			t.Fatalf("%q: %v, want a 400 apierr.Error", body, err)
		}
		if got := e.Message + ": " + strings.TrimSuffix(stringOr(e.Details), ""); got != wantErr {
			t.Fatalf("%q: error %q, encoding/csv gives %q", body, got, wantErr)
		}
		return
	}
	if wantErr != "" {
		t.Fatalf("%q: accepted, encoding/csv gives %q", body, wantErr)
	}
	var positional [][]*string
	if err := json.Unmarshal(p.JSON, &positional); err != nil {
		t.Fatalf("%q: %s is not JSON arrays: %v", body, p.JSON, err)
	}
	var got []map[string]*string
	for _, values := range positional {
		if len(values) != len(p.Header) {
			t.Fatalf("%q: row %v for header %v", body, values, p.Header)
		}
		row := map[string]*string{}
		for i, name := range p.Header {
			row[name] = values[i]
		}
		got = append(got, row)
	}
	want, _ := json.Marshal(wantRows)
	var wantSeen []map[string]*string
	json.Unmarshal(want, &wantSeen)
	if !reflect.DeepEqual(got, wantSeen) || p.Rows != len(wantSeen) || !slices.Equal(p.Keys, wantKeys) {
		t.Fatalf("%q: rows %s (%d) keys %v, want %s keys %v", body, p.JSON, p.Rows, p.Keys, want, wantKeys)
	}
	if len(got) > 0 {
		var first map[string]*string
		if err := json.Unmarshal(p.First, &first); err != nil || len(first) != len(got[0]) {
			t.Fatalf("%q: first row %s, want the first of %s", body, p.First, want)
		}
	}
}

func stringOr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "<nil>"
}

// TestCSVPayloadMatchesEncodingCSV holds csvScan to encoding/csv on the
// dialect's corners: quotes, line ends, empty lines, ragged lines and each
// kind of error, whose texts name the same lines and columns.
func TestCSVPayloadMatchesEncodingCSV(t *testing.T) {
	t.Parallel()
	for _, body := range csvCorners {
		checkCSVPayload(t, []byte(body))
	}
}

var csvCorners = []string{
	"", "\n", "\r\n", "\r", "a", "a\n", "a\r", "a\r\n", "a\n\n\n", "\n\na\n1\n", "a,b\n1,2", "a,b\r\n1,2\r\n",
	"a,b\n1,2\n\n3,4\n", "a,b\n1\n", "a,b\n1,2,3\n", "a\n1\n2,3\n", "a,b\n,\n", "a,b\nNULL,\"NULL\"\n",
	"a\n\"x\"\n", "a\n\"x\"\"y\"\n", "a\n\"\"\n", "a\n\"x\ny\"\n", "a\n\"x\r\ny\"\n", "a\n\"x\n\n\"\n", "a,b\n\"x\",\"y\"\n",
	"a\n\"x\"y\n", "a\nx\"y\n", "a\n\"x\n", "a\n\"x", "a\n\"x\ny", "a,b\n1,\"x\"y\n", "a,b\n\"1\n2\",x\"\n",
	"a\n\"x\"\r", "a\nx\r\ry\r\n", "a\n\"x\r\"\n", "\"a\"\"\",b\n1,2\n", "a\"b\n1\n", "\"a\n", "a,a\n1,2\n", "a,b,a\n1,2,3\n",
	"a\n\xff\x00\x1f\n", "a\n\"\u2028<>&\"\n", "a,b\n\"x\",\n", "a,b\n,\"x\"\n", "a,b\n\"x\"\n", "a\n\"\"\"\"\n",
	"a,b\n1,2\n\"3\n4\",5,6\n", "a\n\"\n\n\n", "a\n\"\"x\n", " a , b \n 1 , 2 \n",
	"a\n\u00e9\ufffd\n", "a\nx\xc3\n", "a\nx\xc3(\n", "\xfe,b\n1,2\n", "a,b\n1,\"x\n\xff\"\n", "a\n\"x\"\xff\n",
	"a,b\n1\n\xff,2\n", "a\r\n\xed\xa0\x80\r\n",
}

// A body that is not UTF-8 is refused, naming where its first stray byte
// is, rather than stored with U+FFFD in place of the bytes sent.
func TestCSVPayloadRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, details string }{
		{"id,name,qty\n5,a\xff\xfeb,1\n", "line 2, column 4: the body is not UTF-8 (byte 0xff)"},
		{"na\xe9me\n1\n", "line 1, column 3: the body is not UTF-8 (byte 0xe9)"},
		{"a,b\n\"x\ny\xc3\",1\n", "line 3, column 2: the body is not UTF-8 (byte 0xc3)"},
		{"a\r\nok\r\n\xed\xa0\x80\r\n", "line 3, column 1: the body is not UTF-8 (byte 0xed)"},
	}
	for _, c := range cases {
		_, err := csvPayload([]byte(c.body))
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != "SVC102" || e.Message != "Invalid CSV" || stringOr(e.Details) != c.details {
			t.Errorf("%q: %v, want SVC102 Invalid CSV: %s", c.body, err, c.details)
		}
	}
}

// FuzzCSVPayload feeds arbitrary bodies to csvPayload and holds it to
// encoding/csv, as TestCSVPayloadMatchesEncodingCSV does for the corners.
func FuzzCSVPayload(f *testing.F) {
	for _, body := range csvCorners {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		checkCSVPayload(t, []byte(body))
	})
}
