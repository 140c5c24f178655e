package server_test

import (
	"fmt"
	"testing"
)

// TestTwoNamingsInOneProcess: the naming is a value each Server is handed
// from its configuration, not a setting of the process, so a server under
// PostgREST's names and one under SVC's answer side by side in this one
// process, at the same time, each with its own error codes, Proxy-Status,
// vendor media types, a call's aliases and custom-error SQLSTATE.
func TestTwoNamingsInOneProcess(t *testing.T) {
	pgrst, _ := serverWithSnapshots(t, map[string]string{"compat-names": "postgrest"})
	type answer struct {
		status        int
		header, value string // a header and its value, when header is set
		body          string // as sameBody compares it
	}
	for _, c := range []struct {
		name, path, accept string
		svc, postgrest     answer
	}{
		{"object of many rows", "/books?select=title", "application/vnd.pgrst.object+json",
			answer{415, "Proxy-Status", "SVC; error=SVC107",
				`{"code":"SVC107","message":"None of these media types are available: application/vnd.pgrst.object+json","details":null,"hint":null}`},
			answer{406, "Proxy-Status", "PostgREST; error=PGRST116",
				`{"code":"PGRST116","message":"JSON object requested, multiple (or no) rows returned","details":"The result contains 7 rows","hint":null}`}},
		{"SVC's object type", "/books?select=title&id=eq.1", "application/vnd.svc.object+json",
			answer{200, "Content-Type", "application/vnd.svc.object+json; charset=utf-8", `{"title":"Dune"}`},
			answer{415, "Proxy-Status", "PostgREST; error=PGRST107",
				`{"code":"PGRST107","message":"None of these media types are available: application/vnd.svc.object+json","details":null,"hint":null}`}},
		{"PostgREST's object type", "/books?select=title&id=eq.1", "application/vnd.pgrst.object+json",
			answer{415, "", "", ""},
			answer{200, "Content-Type", "application/vnd.pgrst.object+json; charset=utf-8", `{"title":"Dune"}`}},
		{"SVC's scalar alias", "/rpc/numbers?n=2&select=svc_scalar", "",
			answer{200, "", "", `[1,2]`},
			answer{400, "", "", `{"code":"42703","message":"column pgrst_call.svc_scalar does not exist","details":null,"hint":null}`}},
		{"PostgREST's scalar alias", "/rpc/numbers?n=2&select=pgrst_scalar", "",
			answer{400, "", "", `{"code":"42703","message":"column svc_call.pgrst_scalar does not exist","details":null,"hint":null}`},
			answer{200, "", "", `[1,2]`}},
		{"RAISE SQLSTATE 'PGRST'", "/rpc/raise_header_pgrst?name=X-Raised&value=yes", "",
			answer{400, "SVC-Advice", "~", ""},
			answer{402, "X-Raised", "yes", `{"code":"123","message":"m","details":null,"hint":null}`}},
	} {
		for _, s := range []struct {
			naming, url string
			want        answer
		}{{"svc", fixture.url, c.svc}, {"postgrest", pgrst, c.postgrest}} {
			t.Run(c.name+"/"+s.naming, func(t *testing.T) {
				t.Parallel() // the two servers answer at the same time
				for range 20 {
					status, h, body := fetchHeader(t, s.url+c.path, c.accept, "")
					value := h.Get(s.want.header)
					got := fmt.Sprintf("%d %s: %q, %s", status, s.want.header, value, body)
					switch {
					case status != s.want.status,
						s.want.value == "~" && value == "",
						s.want.header != "" && s.want.value != "~" && value != s.want.value,
						s.want.body != "" && !sameBody(body, s.want.body):
						t.Fatalf("GET %s (Accept %q) under %s: %s\nwant %+v", c.path, c.accept, s.naming, got, s.want)
					}
				}
			})
		}
	}
}
