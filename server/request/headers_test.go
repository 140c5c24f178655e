package request

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A request's shape (Template.Read, WriteKey) holds the headers Parse
// reads, parsedHeaders, so two requests of one key parse alike. Parse
// reads them through headerValues and headerValue; this test fails on a
// header read by name anywhere else in the package, which a key would
// not hold. Content-Type is the one exception: the body's parser reads
// it, and WriteKey, the only key of requests with a body, holds it.
func TestHeadersReadAreKeyed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Get" && sel.Sel.Name != "Values") {
				return true
			}
			if h, ok := sel.X.(*ast.SelectorExpr); !ok || h.Sel.Name != "Header" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				return true // parsedHeaders[h]: one the key holds
			}
			if name, _ := strconv.Unquote(lit.Value); name != "Content-Type" {
				t.Errorf("%s: the header %s is read by name, and no request's key holds it: add it to parsedHeaders",
					fset.Position(call.Pos()), lit.Value)
			}
			return true
		})
	}
}

// The parsed headers index the header map by their names as written
// (headerValues), which finds them only when the names are canonical, as
// net/http stores a request's header.
func TestParsedHeadersCanonical(t *testing.T) {
	for _, name := range parsedHeaders {
		if c := http.CanonicalHeaderKey(name); c != name {
			t.Errorf("parsed header %q is not canonical: net/http stores it as %q", name, c)
		}
	}
}

// TestAppendHeadersWalksOrLooksUp: the key's header part is the parsed
// headers' values in parsedHeaders' order, whether appendHeaders walks a
// header of few fields or looks each name up in one of many, and
// whatever else the header holds.
func TestAppendHeadersWalksOrLooksUp(t *testing.T) {
	want := func(h http.Header) []byte {
		var key []byte
		for _, name := range parsedHeaders {
			key = binary.AppendUvarint(key, uint64(len(h[name])))
			for _, v := range h[name] {
				key = appendText(key, v)
			}
		}
		return key
	}
	for extra := range 8 {
		for _, parsed := range []http.Header{
			{},
			{"Prefer": {"count=exact"}},
			{"Accept": {"text/csv"}, "Range": {"0-9"}},
			{"Accept": {"a", "b"}, "Accept-Profile": {"p"}, "Content-Profile": {"q"}, "Prefer": {"x"}, "Range": {"1-2"}},
		} {
			h := parsed.Clone()
			for i := range extra {
				h[fmt.Sprintf("X-Extra-%d", i)] = []string{"e"}
			}
			if got := appendHeaders(nil, h); !bytes.Equal(got, want(h)) {
				t.Errorf("%d fields: key %q, want %q", len(h), got, want(h))
			}
		}
	}
}
