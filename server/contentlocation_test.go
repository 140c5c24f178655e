package server_test

import (
	"io"
	"net/http"
	"testing"
)

// TestContentLocationAnswersTheSame: the Content-Location of a read is a
// URL that asks for what the request asked for: GET it and the answer is
// the same, a parameter given twice included.
func TestContentLocationAnswersTheSame(t *testing.T) {
	base := fixture.url
	for _, target := range []string{
		"/authors?id=eq.1", // canonical already: the target is its own Content-Location
		"/authors?id=gte.1&select=id,name&id=lte.2&order=id.desc",
		"/books?select=title,author:authors(name)&year=gte.1900&year=lt.2100&order=id",
		"/authors?or=(id.eq.1,id.eq.3)&select=id&name=not.is.null&name=neq.x",
		`/authors?select=name&name=in.("Frank%20Herbert","Octavia%20E.%20Butler")&order=name`,
		"/books?select=title&tags=cs.{classic}&title=like.*u*",
	} {
		status, body, location := getWithLocation(t, base+target)
		if status != http.StatusOK || location == "" {
			t.Errorf("GET %s: %d, Content-Location %q; want 200 and a Content-Location", target, status, location)
			continue
		}
		again, againBody, _ := getWithLocation(t, base+location)
		if again != status || againBody != body {
			t.Errorf("GET %s answered %d %s\nits Content-Location %s answers %d %s", target, status, body, location, again, againBody)
		}
	}
}

// getWithLocation GETs url and returns the status, the body and the
// Content-Location.
func getWithLocation(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header.Get("Content-Location")
}

// TestAnswersDeclareTheirLength: an answer sent whole says its length,
// whether SVC declares it (a body past heldBodyBytes) or the server does
// (a smaller one): the last is past what http1 holds (32 KiB).
func TestAnswersDeclareTheirLength(t *testing.T) {
	for _, target := range []string{"/authors?id=eq.1", "/books?select=*,authors(*)", "/books?select=title&limit=0", "/rpc/numbers?n=10000"} {
		resp, err := http.Get(fixture.url + target)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("GET %s: %d, Content-Length %d, Transfer-Encoding %v, a body of %d bytes; want 200 and its length declared",
				target, resp.StatusCode, resp.ContentLength, resp.TransferEncoding, len(body))
		}
	}
}
