package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packageRow is a row of architecture.md's package table: the packages it
// names, relative to the module, and the packages of ours they import.
type packageRow struct {
	line     int
	packages []string
	imports  []string
}

// TestPackageTable compares architecture.md's package table with the
// module as `go list` sees it: every package has one row, every row names
// packages that exist, a row's "Imports of ours" is exactly what its
// packages import from the module (tests left out), and, as the page
// says, imports go one way, down the table.
func TestPackageTable(t *testing.T) {
	page, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, errs := packageTable(string(page))
	for _, err := range errs {
		t.Error(err)
	}
	if len(rows) == 0 {
		t.FailNow()
	}
	module, pkgs := listPackages(t)

	rowOf := map[string]int{} // package -> index in rows
	for i, r := range rows {
		for _, p := range r.packages {
			if j, dup := rowOf[p]; dup {
				t.Errorf("architecture.md:%d: `%s` has a row already, at line %d", r.line, p, rows[j].line)
			}
			rowOf[p] = i
		}
	}
	for p := range pkgs {
		if _, ok := rowOf[p]; !ok {
			t.Errorf("architecture.md: package `%s` has no row in the package table", p)
		}
	}
	for i, r := range rows {
		var want []string
		for _, p := range r.packages {
			imports, ok := pkgs[p]
			if !ok {
				t.Errorf("architecture.md:%d: `%s` is not a package of %s", r.line, p, module)
				continue
			}
			want = append(want, imports...)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		got := slices.Sorted(slices.Values(r.imports))
		if !slices.Equal(got, want) {
			t.Errorf("architecture.md:%d: the imports of %s are %s; the table says %s",
				r.line, strings.Join(r.packages, ", "), spans(want), spans(got))
		}
		for _, imp := range want {
			if j, ok := rowOf[imp]; ok && j >= i {
				t.Errorf("architecture.md:%d: %s imports `%s`, whose row is not above it", r.line, strings.Join(r.packages, ", "), imp)
			}
		}
	}
}

// spans renders names as the table's cell does.
func spans(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return "`" + strings.Join(names, "`, `") + "`"
}

// cellSpans are the code spans of a cell, each a package name.
var cellSpans = regexp.MustCompile("`([^`]+)`")

// packageTable reads the table under "## Packages", and what in it is
// not a row it can read. The first cell of a row names its packages and
// the last lists what they import, both as code spans separated by
// commas; "none" is an empty list.
func packageTable(page string) (rows []packageRow, errs []error) {
	lines := strings.Split(page, "\n")
	start := slices.Index(lines, "## Packages")
	if start < 0 {
		return nil, []error{errors.New("architecture.md: no \"## Packages\" section")}
	}
	header := true
	for i := start + 1; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the table has ended
			}
			continue
		}
		if header {
			// The header and its delimiter row.
			if strings.HasPrefix(line, "|---") {
				header = false
			}
			continue
		}
		where := fmt.Sprintf("architecture.md:%d: ", i+1)
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 3 {
			errs = append(errs, errors.New(where+"a package row without three cells"))
			continue
		}
		pkgs, err := spanList(cells[0])
		if err != nil || len(pkgs) == 0 {
			errs = append(errs, errors.New(where+"the first cell names no packages"))
			continue
		}
		imports, err := spanList(cells[len(cells)-1])
		if err != nil {
			errs = append(errs, errors.New(where+err.Error()))
			continue
		}
		rows = append(rows, packageRow{line: i + 1, packages: pkgs, imports: imports})
	}
	if len(rows) == 0 {
		errs = append(errs, errors.New("architecture.md: the package table has no rows"))
	}
	return rows, errs
}

// spanList reads a cell listing code spans separated by commas, or
// "none".
func spanList(cell string) ([]string, error) {
	cell = strings.TrimSpace(cell)
	if cell == "none" {
		return nil, nil
	}
	names := []string{}
	for _, m := range cellSpans.FindAllStringSubmatch(cell, -1) {
		names = append(names, m[1])
	}
	if rest := cellSpans.ReplaceAllString(cell, ""); strings.Trim(rest, ", ") != "" {
		return nil, errors.New("the last cell holds more than code spans or \"none\": " + cell)
	}
	return names, nil
}

// listPackages returns the module's path and its packages, each (relative
// to the module) with the packages of the module its non-test files
// import, as `go list` reports them.
func listPackages(t *testing.T) (string, map[string][]string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	// Without -pgo=off, the packages svc-serve links are listed as its
	// profile-guided variants ("server [.../cmd/svc-serve]").
	cmd := exec.Command(goBin, "list", "-pgo=off", "-json", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	type listed struct {
		ImportPath string
		Module     struct{ Path string }
		Imports    []string
	}
	var all []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		all = append(all, p)
	}
	if len(all) == 0 || all[0].Module.Path == "" {
		t.Fatal("go list reported no packages of a module")
	}
	module := all[0].Module.Path
	ours := func(path string) (string, bool) {
		if path == module {
			return ".", true
		}
		return strings.CutPrefix(path, module+"/")
	}
	pkgs := map[string][]string{}
	for _, p := range all {
		name, ok := ours(p.ImportPath)
		if !ok {
			continue
		}
		imports := []string{}
		for _, imp := range p.Imports {
			if rel, ok := ours(imp); ok {
				imports = append(imports, rel)
			}
		}
		pkgs[name] = imports
	}
	return module, pkgs
}
