package server

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestCSVHeaderMatchesEncodingCSV proves the plain-name fast path writes
// what encoding/csv writes, for names that need quoting and names that
// do not.
func TestCSVHeaderMatchesEncodingCSV(t *testing.T) {
	for _, names := range [][]string{
		{"id", "author_id", "title"},
		{"a b", "x"},
		{"with,comma", "ok"},
		{`with"quote`},
		{"line\nbreak", "cr\rhere"},
		{" leading", "\ttab", "\u00a0nbsp"},
		{`\.`, "end"},
		{"", "empty first"},
		{"ünïcode", "名前"},
	} {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(names)
		w.Flush()
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if got := csvHeader(names); !bytes.Equal(got, want) {
			t.Errorf("csvHeader(%q) = %q, want %q", names, got, want)
		}
	}
}
