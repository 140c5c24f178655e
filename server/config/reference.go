package config

import (
	"fmt"
	"slices"
	"strings"
)

//go:generate go run ./internal/refgen ../../docs/configuration.md

// Entry describes one configuration key for people: svc-serve --help and
// the configuration reference (docs/configuration.md) are written from
// these, so neither can drift from the keys the code reads.
type Entry struct {
	Name    string // as in the configuration file and as a flag
	Doc     string // one line
	Default string // in file syntax; "" when empty
	Env     string // the SVC_* environment variable
	// Reloadable reports whether 'reload config' applies a change; other
	// keys are read once, at start.
	Reloadable bool
	// DatabaseSetting is the authenticator role's setting that sets the key
	// (svc.<name> with "-" as "_"; pgrst.* under compat-names = postgrest),
	// or "" when in-database configuration cannot set it.
	DatabaseSetting string
	// PostgREST is PostgREST's name for the key, "" for a key of SVC's own.
	PostgREST string
	// OlderNames are PostgREST's older names for the key, still read.
	OlderNames []string
}

// Reference describes every implemented key, sorted by name.
func Reference() []Entry {
	older := map[string][]string{}
	for alias, name := range aliases {
		older[name] = append(older[name], alias)
	}
	out := make([]Entry, 0, len(keys))
	for _, name := range sortedKeyNames {
		k := keyByName[name]
		e := Entry{Name: k.name, Doc: k.doc, Default: k.def, Env: envName(k.name), Reloadable: !k.atStart}
		if !k.notInDB {
			e.DatabaseSetting = "svc." + strings.ReplaceAll(k.name, "-", "_")
		}
		if !k.svc {
			e.PostgREST = k.name
		}
		e.OlderNames = slices.Sorted(slices.Values(older[k.name]))
		out = append(out, e)
	}
	return out
}

// Usage is a key's description for a command-line flag: its meaning and
// environment variable, in the style urfave/cli gives the variables it
// reads itself.
func (e Entry) Usage() string { return fmt.Sprintf("%s [$%s]", e.Doc, e.Env) }

// ReferenceMarkdown renders Reference as the key list of
// docs/configuration.md, one section per key.
func ReferenceMarkdown() string {
	var b strings.Builder
	for _, e := range Reference() {
		fmt.Fprintf(&b, "### `%s`\n\n%s.\n\n", e.Name, upperFirst(e.Doc))
		def := "`" + e.Default + "`"
		if e.Default == "" {
			def = "empty"
		}
		fmt.Fprintf(&b, "- default: %s\n- environment: `%s`\n", def, e.Env)
		if e.Reloadable {
			b.WriteString("- reload config: applies a change\n")
		} else {
			b.WriteString("- reload config: no, read at start (restart to change it)\n")
		}
		if e.DatabaseSetting != "" {
			fmt.Fprintf(&b, "- in the database: `%s`\n", e.DatabaseSetting)
		} else {
			b.WriteString("- in the database: no\n")
		}
		switch {
		case e.PostgREST == "":
			b.WriteString("- PostgREST: none, SVC's own\n")
		case len(e.OlderNames) > 0:
			fmt.Fprintf(&b, "- PostgREST: same name; also read under its older name%s `%s`\n",
				plural(len(e.OlderNames)), strings.Join(e.OlderNames, "`, `"))
		default:
			b.WriteString("- PostgREST: same name\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// UnimplementedMarkdown renders the PostgREST keys SVC does not
// implement, and what it does instead, as a list for
// docs/configuration.md.
func UnimplementedMarkdown() string {
	var b strings.Builder
	for _, u := range unimplementedKeys {
		fmt.Fprintf(&b, "- `%s`: %s", u.name, u.instead)
		if u.harmless == nil {
			b.WriteString("; ignored with a warning\n")
		} else {
			fmt.Fprintf(&b, "; accepted only at `%s` (any other value stops svc-serve)\n", strings.Join(u.harmless, "` or `"))
		}
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// FillReference replaces the generated sections of the configuration
// reference doc with what ReferenceMarkdown and UnimplementedMarkdown
// render now: the text between "<!-- begin generated keys -->" and
// "<!-- end generated keys -->", and likewise "unimplemented". The doc
// is current when FillReference returns it unchanged.
func FillReference(doc string) (string, error) {
	for name, render := range map[string]func() string{"keys": ReferenceMarkdown, "unimplemented": UnimplementedMarkdown} {
		begin, end := "<!-- begin generated "+name+" -->\n", "<!-- end generated "+name+" -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("no %q ... %q section", strings.TrimSpace(begin), end)
		}
		doc = doc[:i+len(begin)] + "\n" + render() + doc[j:]
	}
	return doc, nil
}
