// Package docs holds SVC's documentation; its test checks that the README
// and these pages stay inside the repository and point at what exists.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pages are the documents a clone ships with, relative to the repository.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", d))
	}
	return out
}

var (
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// repoPath is a code span naming a file or directory of the
	// repository by its top-level directory.
	repoPath = regexp.MustCompile(`^(\.ci|cmd|deploy|docs|server|snapshot|sql)/[A-Za-z0-9_./-]*$`)
	// fence is a fenced code block, whose lines are not headings.
	fence = regexp.MustCompile("(?s)```.*?```")
)

// anchor is GitHub's id for a heading: lower case, punctuation other than
// "-" dropped, spaces as "-".
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(string(data), ""), -1) {
		out[anchor(strings.ReplaceAll(m[1], "`", ""))] = true
	}
	return out
}

// TestLinks: every link in the README and docs/ resolves to a file of the
// repository (and to a heading of it, after #), and every path they name
// in code exists. Nothing points outside: a clone has only this.
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages(t) {
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		dir := filepath.Dir(filepath.Join(root, page))
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
				t.Errorf("%s: link %s leaves the repository", page, target)
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := filepath.Join(root, page) // a bare #fragment is this page
			if file != "" {
				path = filepath.Join(dir, file)
			}
			if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: link %s points outside the repository", page, target)
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[frag] {
				t.Errorf("%s: link %s: no heading #%s there", page, target, frag)
			}
		}
		for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(m[1], "/")
			if !repoPath.MatchString(m[1]) || strings.ContainsAny(p, "*<") {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("%s: names %s, which does not exist", page, m[1])
			}
		}
		// Outside the repository only the conformance corpus may be named,
		// once, in the README's test section, as an optional CI input.
		for _, outside := range []string{"../shared", "SPEC.md", "DESIGN.md", "STYLE.md"} {
			n := strings.Count(text, outside)
			if page == "README.md" && outside == "../shared" {
				n -= min(strings.Count(text, "../shared/conformance"), 1)
			}
			if n > 0 {
				t.Errorf("%s mentions %q: documents a clone does not have", page, outside)
			}
		}
	}
}
