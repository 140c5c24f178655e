package server_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// testCase is one request and the response it must get, read from a case
// file under testdata/cases. The format reads like SPEC.md:
//
//	# what the case shows
//	GET /books?select=title&id=eq.1
//	Accept: application/json
//
//	(optional request body)
//
//	200
//	Content-Range: 0-0/*
//
//	[{"title":"Dune"}]
//
// Spaces in the request target are sent as %20, so values read naturally.
// Cases in one file are separated by a line holding only "---" and run in
// order. Listed response headers must match exactly (a header listed more
// than once must have exactly those values, in order); a JSON body is
// compared semantically, anything else byte for byte after trimming. A body
// written as "~ <regexp>" must match that regular expression instead, for
// output whose numbers vary from run to run (query plans). Advice naming
// the snapshot in use (a body's text, or a header's such as SVC-Advice) is
// compared with its fingerprint and time written
// "fingerprint <fingerprint>, taken <time>".
//
// A Host request header is sent as the request's host.
//
// A request header may carry {{jwt <claims JSON>}}, replaced by a token
// with those claims signed (HS256) with the file's "% jwt-secret".
//
// A file may open with configuration lines, "% key = value" (keys as in the
// config file); its cases then run against a server of their own with those
// settings over the shared fixture's. The line "% fixture = <file>" instead
// names an SQL script under testdata run (as superuser) before the file's
// cases, for files that write: it resets the rows of the tables they
// change. The tables themselves belong in fixture.sql, so that every
// server's snapshot holds them.
type testCase struct {
	file, name string
	line       int
	method     string
	target     string
	reqHeader  [][2]string
	reqBody    string
	status     int
	respHeader [][2]string
	respBody   string
}

var statusLine = regexp.MustCompile(`^[1-5][0-9][0-9]$`)

func readCaseFile(path string) ([]testCase, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	settings := map[string]string{}
	var cases []testCase
	var block []string
	start := 1
	flush := func(endLine int) error {
		if strings.TrimSpace(strings.Join(block, "")) != "" {
			c, err := parseCase(path, start, block)
			if err != nil {
				return err
			}
			cases = append(cases, c)
		}
		block, start = nil, endLine+1
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if line, ok := strings.CutPrefix(sc.Text(), "%"); ok && len(cases) == 0 && strings.TrimSpace(strings.Join(block, "")) == "" {
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return nil, nil, fmt.Errorf("%s:%d: configuration line must be %% key = value", path, n)
			}
			settings[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
			start = n + 1
			continue
		}
		if strings.TrimSpace(sc.Text()) == "---" {
			if err := flush(n); err != nil {
				return nil, nil, err
			}
			continue
		}
		block = append(block, sc.Text())
	}
	return cases, settings, flush(n)
}

func parseCase(file string, firstLine int, lines []string) (testCase, error) {
	c := testCase{file: file, line: firstLine}
	i := 0
	bad := func(msg string) error { return fmt.Errorf("%s:%d: %s", file, firstLine+i, msg) }
	for ; i < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "#")); i++ {
		if c.name == "" && strings.HasPrefix(lines[i], "#") {
			c.name = strings.TrimSpace(strings.TrimPrefix(lines[i], "#"))
		}
	}
	if i == len(lines) {
		return c, bad("no request line")
	}
	method, target, ok := strings.Cut(strings.TrimSpace(lines[i]), " ")
	if !ok {
		return c, bad("request line must be METHOD /path")
	}
	c.method, c.target, c.line = method, target, firstLine+i
	i++
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		k, v, ok := strings.Cut(lines[i], ":")
		if !ok {
			return c, bad("request header must be Name: value")
		}
		c.reqHeader = append(c.reqHeader, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	var body []string
	for ; i < len(lines) && !statusLine.MatchString(strings.TrimSpace(lines[i])); i++ {
		body = append(body, lines[i])
	}
	c.reqBody = strings.TrimSpace(strings.Join(body, "\n"))
	if i == len(lines) {
		return c, bad("no status line (three digits alone on a line)")
	}
	c.status, _ = strconv.Atoi(strings.TrimSpace(lines[i]))
	i++
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		k, v, ok := strings.Cut(lines[i], ":")
		if !ok {
			return c, bad("response header must be Name: value")
		}
		c.respHeader = append(c.respHeader, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	c.respBody = strings.TrimSpace(strings.Join(lines[min(i, len(lines)):], "\n"))
	return c, nil
}
