package main

import (
	"strings"
	"testing"
)

// A profile in callgrind's compressed format: names defined once and used
// by id, positions absolute, relative and repeated, and a call whose cost
// line carries the call's inclusive cost, which counts once per call.
const sample = `# callgrind format
version: 1
positions: instr line
events: Ir

ob=(1) /bin/svc
fl=(1) server/a.go
fn=(1) github.com/svc-dev/svc/server/http1.(*conn).serve
0x1000 10 100
+4 * 100
+60 11 100
cfl=(1)
cfn=(2) runtime.mallocgc
calls=100 0x2000 5
* 11 5000
+8 12 3
fn=(2)
0x2000 5 100
+2 * 100
fn=(3) github.com/svc-dev/svc/server/http1.(*conn).serve'2
0x1044 10 60
`

func TestFootprint(t *testing.T) {
	p, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	// 0x1000, 0x1004, 0x1040, 0x1048 (3 runs), 0x2000, 0x2002, 0x1044
	// (60 runs, the recursive name folded); the call's 5000 is mallocgc's
	// cost, already counted at 0x2000 and 0x2002.
	if want := int64(100 + 100 + 100 + 3 + 100 + 100 + 60); p.total != want {
		t.Errorf("total %d, want %d", p.total, want)
	}
	fp := p.hot(50) // half of 100 requests
	if fp.instrs != 6 {
		t.Errorf("hot instructions %d, want 6: 0x1048 ran 3 times", fp.instrs)
	}
	// Lines 0x1000>>6 = 0x40 (0x1000, 0x1004), 0x41 (0x1040, 0x1044),
	// 0x80 (0x2000, 0x2002).
	if fp.lines != 3 {
		t.Errorf("lines %d, want 3", fp.lines)
	}
	const conn = "github.com/svc-dev/svc/server/http1.(*conn).serve"
	if fp.byFn[conn] != 2 || fp.byFn["runtime.mallocgc"] != 1 {
		t.Errorf("by function %v", fp.byFn)
	}
	if fp.byPkg["github.com/svc-dev/svc/server/http1"] != 2 || fp.byPkg["runtime"] != 1 {
		t.Errorf("by package %v", fp.byPkg)
	}
}

func TestPkgOf(t *testing.T) {
	for fn, want := range map[string]string{
		"github.com/svc-dev/svc/server.pipeline[go.shape.*uint8]": "github.com/svc-dev/svc/server",
		"github.com/jackc/pgx/v5/pgproto3.(*Bind).Encode":         "github.com/jackc/pgx/v5/pgproto3",
		"runtime.mallocgc": "runtime",
		"aeshashbody":      "runtime",
		"":                 "(unknown)",
	} {
		if got := pkgOf(fn); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", fn, got, want)
		}
	}
}

// Compared, two profiles give the lines each has and the functions whose
// lines differ, gains and losses apart.
func TestCompare(t *testing.T) {
	old := footprint{lines: 5, byFn: map[string]float64{"a": 3, "b": 2}, byPkg: map[string]float64{"runtime": 2, "x": 3}}
	new := footprint{lines: 4, byFn: map[string]float64{"a": 1, "b": 2, "c": 1}, byPkg: map[string]float64{"internal/runtime/maps": 1, "x": 3}}
	var out strings.Builder
	compare(&out, old, new, 10)
	want := `lines of code: base 5, this 4 (-1); outside the runtime: base 3, this 3 (+0)

lines gained, by function:
   +1.0  c

lines lost, by function:
   -2.0  a
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A profile of source lines alone says nothing of the code's addresses.
func TestNeedsInstructions(t *testing.T) {
	if _, err := parse(strings.NewReader(strings.Replace(sample, "positions: instr line", "positions: line", 1))); err == nil {
		t.Error("a profile without instruction positions parsed")
	}
}
