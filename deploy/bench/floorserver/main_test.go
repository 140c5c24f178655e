package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestReadScripts holds readScript to the benchmark's own scripts: every
// pgbench variable of a main statement becomes a bind parameter, in
// order, one for each of the request's values, and no cast is taken for a
// variable; a read's settings statement is told from its main one.
func TestReadScripts(t *testing.T) {
	param := regexp.MustCompile(`\$[0-9]+`)
	for kind, params := range map[string][]string{
		"lookup": {"id"},
		"page":   {"author_id", "limit"},
		"insert": {"body"},
	} {
		w, err := readScript("../"+kind+".pgbench", params)
		if err != nil {
			t.Fatal(err)
		}
		got := param.FindAllString(w.main, -1)
		if len(got) != len(params) {
			t.Errorf("%s: parameters %v in %s, want %d", kind, got, w.main, len(params))
		}
		for i, p := range got {
			if want := "$" + string(rune('1'+i)); p != want {
				t.Errorf("%s: parameter %d is %s, want %s", kind, i, p, want)
			}
		}
		if strings.Contains(w.main, "/*") || numberVars(w.main, 0) != w.main {
			t.Errorf("%s: variables left in %s", kind, w.main)
		}
		if !strings.Contains(w.main, "::") {
			t.Errorf("%s: casts lost in %s", kind, w.main)
		}
		if !strings.HasPrefix(w.setup, "select pg_catalog.set_config('role'") {
			t.Errorf("%s: set-up %s", kind, w.setup)
		}
		// A read's settings are read after its rows, as SVC reads them;
		// an insert's come with its one row.
		if wantAfter := kind != "insert"; strings.HasPrefix(w.after, settingsPrefix) != wantAfter || strings.HasPrefix(w.main, settingsPrefix) {
			t.Errorf("%s: main %s, after %q", kind, w.main, w.after)
		}
	}
	if got := numberVars("select :a::int, x::text, :b", 0); got != "select $1::int, x::text, $2" {
		t.Errorf("numberVars: %s", got)
	}
}
