package apierr

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRaisedReadAsPostgREST reads a custom error's message and detail key
// by key and type by type, as PostgREST does, and names the field at
// fault in SVC121's details and hint.
func TestRaisedReadAsPostgREST(t *testing.T) {
	t.Parallel()
	const okMessage, okDetail = `{"code":"123","message":"m"}`, `{"status":402,"headers":{}}`
	bad := func(field, text string) [2]string {
		hint := raiseDetailHint
		if field == "MESSAGE" {
			hint = raiseMessageHint
		}
		return [2]string{"Invalid JSON value for " + field + ": '" + text + "'", hint}
	}
	cases := []struct {
		name, message, detail string
		want                  [2]string // details and hint; zero when the raise is answered
	}{
		{"fine", okMessage, okDetail, [2]string{}},
		{"every key", `{"code":"1","message":"m","details":"d","hint":"h"}`,
			`{"status":418,"status_text":"Teapot","headers":{"X-A":"b"}}`, [2]string{}},
		{"optional keys null", `{"code":"1","message":"m","details":null,"hint":null}`,
			`{"status":402.0,"status_text":null,"headers":{}}`, [2]string{}},
		{"message not JSON", "not json", okDetail, bad("MESSAGE", "not json")},
		{"message not an object", `["code"]`, okDetail, bad("MESSAGE", `["code"]`)},
		{"message without code", `{"message":"m"}`, okDetail, bad("MESSAGE", `{"message":"m"}`)},
		{"code not a string", `{"code":123,"message":"m"}`, okDetail, bad("MESSAGE", `{"code":123,"message":"m"}`)},
		{"details not a string", `{"code":"1","message":"m","details":{"a":1}}`, okDetail,
			bad("MESSAGE", `{"code":"1","message":"m","details":{"a":1}}`)},
		{"detail missing", okMessage, "", [2]string{"DETAIL is missing in the RAISE statement", raiseDetailHint}},
		{"detail not JSON", okMessage, "INVALID", bad("DETAIL", "INVALID")},
		{"no headers", okMessage, `{"status":402}`, bad("DETAIL", `{"status":402}`)},
		{"no status", okMessage, `{"headers":{}}`, bad("DETAIL", `{"headers":{}}`)},
		{"status a string", okMessage, `{"status":"402","headers":{}}`, bad("DETAIL", `{"status":"402","headers":{}}`)},
		{"status a fraction", okMessage, `{"status":402.5,"headers":{}}`, bad("DETAIL", `{"status":402.5,"headers":{}}`)},
		{"header value null", okMessage, `{"status":402,"headers":{"X-A":null}}`,
			bad("DETAIL", `{"status":402,"headers":{"X-A":null}}`)},
		{"headers a list", okMessage, `{"status":402,"headers":[]}`, bad("DETAIL", `{"status":402,"headers":[]}`)},
		{"status_text a number", okMessage, `{"status":402,"status_text":1,"headers":{}}`,
			bad("DETAIL", `{"status":402,"status_text":1,"headers":{}}`)},
	}
	for _, c := range cases {
		e := FromPG(SVCNaming, &pgconn.PgError{Code: "SVC00", Message: c.message, Detail: c.detail}, false)
		if c.want == ([2]string{}) {
			if e.Code == "SVC121" {
				t.Errorf("%s: refused: %v / %v", c.name, e.Details, e.Hint)
			}
			continue
		}
		if e.Status != 500 || e.Code != "SVC121" || e.Details != c.want[0] || e.Hint != c.want[1] {
			t.Errorf("%s: got %d %s, details %v, hint %v; want 500 SVC121, %q, %q", c.name, e.Status, e.Code, e.Details, e.Hint, c.want[0], c.want[1])
		}
	}
}
