package apierr

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// errorsDoc is the error reference this package's catalogue is checked
// against.
const errorsDoc = "../../docs/errors.md"

// catalogue finds every error this package builds with a literal code and
// status, by reading its source: each &Error{Status: n, Code: code("nnn")}
// (an SVC code, written here with SVCNaming's prefix) or Code: "42P01" (a
// SQLSTATE SVC answers without the database). It returns the statuses of
// each code.
func catalogue(t *testing.T) map[string][]int {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "Error" {
				return true
			}
			var code string
			var status int
			for _, elt := range lit.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch kv.Key.(*ast.Ident).Name {
				case "Status":
					if b, ok := kv.Value.(*ast.BasicLit); ok && b.Kind == token.INT {
						status, _ = strconv.Atoi(b.Value)
					}
				case "Code":
					switch v := kv.Value.(type) {
					case *ast.BasicLit:
						code, _ = strconv.Unquote(v.Value)
					case *ast.CallExpr:
						if fn, ok := v.Fun.(*ast.Ident); ok && fn.Name == "code" && len(v.Args) == 1 {
							if b, ok := v.Args[0].(*ast.BasicLit); ok {
								suffix, _ := strconv.Unquote(b.Value)
								code = SVCNaming.CodePrefix + suffix
							}
						}
					}
				}
			}
			if code != "" && status != 0 && !slices.Contains(out[code], status) {
				out[code] = append(out[code], status)
				slices.Sort(out[code])
			}
			return true
		})
	}
	return out
}

// docTable reads the rows of the table between "<!-- begin checked NAME -->"
// and "<!-- end checked NAME -->" in the errors reference: the first cell
// (a code in backticks) and the second (statuses).
func docTable(t *testing.T, doc, name string) map[string]string {
	t.Helper()
	begin, end := "<!-- begin checked "+name+" -->", "<!-- end checked "+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %s ... %s section", errorsDoc, begin, end)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]+) \\|")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(doc[i:j], -1) {
		if _, dup := out[m[1]]; dup {
			t.Errorf("%s: %s listed twice", errorsDoc, m[1])
		}
		out[m[1]] = strings.TrimSpace(m[2])
	}
	return out
}

func statusList(statuses []int) string {
	s := make([]string, len(statuses))
	for i, n := range statuses {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// TestErrorsDoc keeps docs/errors.md and this package in step: every code
// an Error is built with is listed with exactly its statuses, nothing else
// is, and the SQLSTATE table gives the statuses StatusForSQLState does.
func TestErrorsDoc(t *testing.T) {
	data, err := os.ReadFile(errorsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	built := catalogue(t)
	listed := docTable(t, doc, "codes")
	for _, code := range slices.Sorted(maps.Keys(built)) {
		want := statusList(built[code])
		if got, ok := listed[code]; !ok {
			t.Errorf("%s: %s (status %s) is not listed", errorsDoc, code, want)
		} else if got != want {
			t.Errorf("%s: %s listed with status %q, built with %s", errorsDoc, code, got, want)
		}
	}
	for code := range listed {
		if _, ok := built[code]; !ok {
			t.Errorf("%s: %s is listed but no error is built with it", errorsDoc, code)
		}
	}

	states := docTable(t, doc, "sqlstates")
	for state := range sqlstateStatus {
		key := state
		if len(state) == 2 {
			key = state + "*"
		}
		if _, ok := states[key]; !ok {
			t.Errorf("%s: SQLSTATE %s is not listed", errorsDoc, key)
		}
	}
	for key, got := range states {
		state := strings.TrimSuffix(key, "*")
		if len(state) != 2 && len(state) != 5 {
			continue // "any other"
		}
		want := fmt.Sprint(StatusForSQLState(state+"000"[:5-len(state)], true))
		if unauth := fmt.Sprint(StatusForSQLState(state+"000"[:5-len(state)], false)); unauth != want {
			want += " if authenticated, else " + unauth
		}
		if _, exact := sqlstateStatus[state]; !exact && state != "42501" {
			t.Errorf("%s: SQLSTATE %s is listed but not in the table", errorsDoc, key)
		}
		if got != want {
			t.Errorf("%s: SQLSTATE %s listed with %q, answered %s", errorsDoc, key, got, want)
		}
	}
}
