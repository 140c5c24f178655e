package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxTopFloor is the most files the top floor of package server may
// hold: what is not the request's story has a package of its own.
const maxTopFloor = 12

// storyFile is an item of the story's list in architecture.md: "1.
// `server.go`: ...".
var storyFile = regexp.MustCompile("^[0-9]+\\. `([a-z0-9_]+\\.go)`")

// TestServerStory holds the rule architecture.md states for the top floor
// of package server: its files are the story's list, in its order, at
// most maxTopFloor of them, and none defines or refers to anything
// declared in a file above it in the story, so that the story reads from
// the top down. References are found by type-checking the package: a
// name, a method called or a field read, whatever the file that declares
// it.
func TestServerStory(t *testing.T) {
	page, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	story := storyList(string(page))
	if len(story) == 0 {
		t.Fatal("architecture.md: no list of server's files under \"## A request\"")
	}
	if len(story) > maxTopFloor {
		t.Errorf("architecture.md lists %d files on server's top floor, more than %d", len(story), maxTopFloor)
	}
	files, err := filepath.Glob("../server/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			have = append(have, filepath.Base(f))
		}
	}
	if len(have) > maxTopFloor {
		t.Errorf("server's top floor has %d files, more than %d: %s", len(have), maxTopFloor, strings.Join(have, ", "))
	}
	for _, f := range have {
		if !slices.Contains(story, f) {
			t.Errorf("server/%s is not in architecture.md's story", f)
		}
	}
	for _, f := range story {
		if !slices.Contains(have, f) {
			t.Errorf("architecture.md's story lists server/%s, which does not exist", f)
		}
	}
	for _, v := range upwardReferences(t, "../server", story) {
		t.Error(v)
	}
}

// storyList is the files the list under "## A request" names, in order.
func storyList(page string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(page, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## A request"
		case in:
			if m := storyFile.FindStringSubmatch(line); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// upwardReferences type-checks the package in dir (tests left out) and
// returns, for each file of story, what it defines or refers to that a
// file before it in story declares.
func upwardReferences(t *testing.T, dir string, story []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range story {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: exportImporter(t, fset, dir)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("server", fset, files, info)
	if err != nil {
		t.Fatalf("type-check server: %v", err)
	}
	rank := map[string]int{} // file name -> place in the story
	for i, name := range story {
		rank[name] = i
	}
	var out []string
	seen := map[string]bool{}
	for i, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[id]
			if obj == nil {
				return true
			}
			if o, ok := obj.(interface{ Origin() types.Object }); ok {
				obj = o.Origin()
			}
			if obj.Pkg() != pkg || !obj.Pos().IsValid() {
				return true
			}
			decl := filepath.Base(fset.Position(obj.Pos()).Filename)
			if j, ok := rank[decl]; ok && j < i {
				msg := fmt.Sprintf("server/%s refers to %s, which server/%s declares above it in the story (%s)",
					story[i], obj.Name(), decl, fset.Position(id.Pos()))
				if key := story[i] + obj.Name() + decl; !seen[key] {
					seen[key] = true
					out = append(out, msg)
				}
			}
			return true
		})
	}
	return out
}

// exportImporter imports the packages dir's package imports from the
// export data `go list -export` builds.
func exportImporter(t *testing.T, fset *token.FileSet, dir string) types.Importer {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}
