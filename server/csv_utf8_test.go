package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestCSVBodyNotUTF8 posts CSV bodies holding bytes that are not UTF-8
// (a case file holds text, so these are written here): each is refused
// with SVC102 naming where the first stray byte is, and no row of it is
// written, not even the valid rows before it. JSON bodies (PostgreSQL's
// 22021) and form bodies (SVC102) with such bytes were refused already;
// CSV ones were stored with U+FFFD in place of the bytes.
func TestCSVBodyNotUTF8(t *testing.T) {
	cases := []struct{ name, body, details string }{
		{"a field", "name,qty\nutf8-a\xff\xfeb,1\n", "line 2, column 7: the body is not UTF-8 (byte 0xff)"},
		{"a later row", "name,qty\nutf8-ok,1\nutf8-bad\xe9,2\n", "line 3, column 9: the body is not UTF-8 (byte 0xe9)"},
		{"a quoted field over lines", "name,note\nutf8-q,\"x\ny\xc3\"\n", "line 3, column 2: the body is not UTF-8 (byte 0xc3)"},
		{"the header", "na\xffme,qty\nutf8-h,1\n", "line 1, column 3: the body is not UTF-8 (byte 0xff)"},
	}
	base := fixture.url
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := send(t, http.MethodPost, base+"/w_items", "text/csv", c.body)
			var got struct{ Code, Message, Details string }
			if err := json.Unmarshal(body, &got); err != nil || status != http.StatusBadRequest ||
				got.Code != "SVC102" || got.Message != "Invalid CSV" || got.Details != c.details {
				t.Fatalf("status %d, body %s; want 400 SVC102 Invalid CSV: %s", status, body, c.details)
			}
		})
	}
	// A function's CSV arguments are read the same way.
	t.Run("a call's arguments", func(t *testing.T) {
		status, body := send(t, http.MethodPost, base+"/rpc/add", "text/csv", "a,b\n1,2\xff\n")
		if status != http.StatusBadRequest || !strings.Contains(string(body), `"SVC102"`) {
			t.Fatalf("status %d, body %s; want 400 SVC102", status, body)
		}
	})
	status, body := send(t, http.MethodGet, base+"/w_items?select=name&name=like.utf8-*", "", "")
	if status != http.StatusOK || string(body) != "[]" {
		t.Fatalf("rows written by refused bodies: %d %s", status, body)
	}
}

// send makes one request with body as contentType and returns the
// answer's status and body.
func send(t *testing.T, method, url, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}
