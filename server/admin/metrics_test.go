package admin

import (
	"net/http"
	"testing"
)

// A request is counted under the route kind the router would choose, and
// an unknown method or status under a slot of its own.
func TestRequestLabels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		kind int
	}{
		{"/", kindRoot},
		{"/books", kindRelation},
		{"/rpc/add", kindFunction},
		{"/rpc/", kindRelation}, // no function named: the router's 404 for a relation path
		{"/rpcx", kindRelation},
	} {
		if got := kindOf(tc.path); got != tc.kind {
			t.Errorf("kindOf(%q) = %s, want %s", tc.path, kindNames[got], kindNames[tc.kind])
		}
	}
	if got := methodSlot(http.MethodPatch); methodNames[got] != http.MethodPatch {
		t.Errorf("PATCH counted as %s", methodNames[got])
	}
	if got := methodSlot("BREW"); methodNames[got] != "other" {
		t.Errorf("BREW counted as %s, want other", methodNames[got])
	}
}
