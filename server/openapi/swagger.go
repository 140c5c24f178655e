package openapi

import (
	"fmt"
	"net/url"
	"strings"
)

// The Swagger 2.0 objects the document uses, with only the fields SVC
// fills. Maps marshal with sorted keys, so the output is deterministic;
// Write writes a document's large maps an entry at a time in that order.

type document struct {
	swaggerHead
	Paths       map[string]*pathItem  `json:"paths"`
	Definitions map[string]*schema    `json:"definitions"`
	Parameters  map[string]*parameter `json:"parameters"`
	swaggerTail
}

// swaggerHead are the document's members before its paths, and
// swaggerTail those after its parameters: Write writes each whole.
type swaggerHead struct {
	Swagger  string   `json:"swagger"`
	Info     info     `json:"info"`
	Host     string   `json:"host,omitempty"`
	BasePath string   `json:"basePath,omitempty"`
	Schemes  []string `json:"schemes,omitempty"`
	Consumes []string `json:"consumes"`
	Produces []string `json:"produces"`
}

type swaggerTail struct {
	SecurityDefinitions map[string]*securityScheme `json:"securityDefinitions,omitempty"`
	Security            []map[string][]string      `json:"security,omitempty"`
}

type info struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
}

type pathItem struct {
	Get    *operation `json:"get,omitempty"`
	Post   *operation `json:"post,omitempty"`
	Patch  *operation `json:"patch,omitempty"`
	Delete *operation `json:"delete,omitempty"`
}

type operation struct {
	Tags        []string             `json:"tags,omitempty"`
	Summary     string               `json:"summary,omitempty"`
	Description string               `json:"description,omitempty"`
	Produces    []string             `json:"produces,omitempty"`
	Parameters  []*parameter         `json:"parameters,omitempty"`
	Responses   map[string]*response `json:"responses"`
}

type response struct {
	Description string  `json:"description"`
	Schema      *schema `json:"schema,omitempty"`
}

// parameter is a parameter object, or (Ref alone) a reference to one in
// the document's shared parameters. A body parameter has Schema; any other
// has Type (and Items for arrays).
type parameter struct {
	Ref              string   `json:"$ref,omitempty"`
	Name             string   `json:"name,omitempty"`
	In               string   `json:"in,omitempty"`
	Description      string   `json:"description,omitempty"`
	Required         *bool    `json:"required,omitempty"`
	Schema           *schema  `json:"schema,omitempty"`
	Type             string   `json:"type,omitempty"`
	Format           string   `json:"format,omitempty"`
	Items            *schema  `json:"items,omitempty"`
	CollectionFormat string   `json:"collectionFormat,omitempty"`
	Default          any      `json:"default,omitempty"`
	Enum             []string `json:"enum,omitempty"`
}

// schema is a Swagger schema object. An empty Type accepts any JSON value
// (json and jsonb columns).
type schema struct {
	Ref         string             `json:"$ref,omitempty"`
	Description string             `json:"description,omitempty"`
	Type        string             `json:"type,omitempty"`
	Format      string             `json:"format,omitempty"`
	Items       *schema            `json:"items,omitempty"`
	Enum        []string           `json:"enum,omitempty"`
	Default     any                `json:"default,omitempty"`
	MaxLength   int                `json:"maxLength,omitempty"`
	Properties  map[string]*schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
}

type securityScheme struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Name        string `json:"name"`
	In          string `json:"in"`
}

// optional and required are the two values of parameter.Required.
var (
	optional = func() *bool { b := false; return &b }()
	required = func() *bool { b := true; return &b }()
)

// ref points into a section of the document ("definitions",
// "parameters"). The name is escaped as a JSON pointer token ("~" and "/")
// and then as a URI fragment, since validators resolve $ref as a URI.
func ref(section, name string) string {
	return "#/" + section + "/" + escapeFragment(pointerToken.Replace(name))
}

// pointerToken escapes a JSON pointer token. A Replacer builds its tables
// on first use, a cost paid once here rather than per reference.
var pointerToken = strings.NewReplacer("~", "~0", "/", "~1")

// escapeFragment percent-encodes what a URI fragment may not hold raw.
func escapeFragment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if fragmentSafe(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func fragmentSafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*,;=:@", c) >= 0
}

// paramRef is a parameter referring to the shared parameter name.
func paramRef(name string) *parameter { return &parameter{Ref: ref("parameters", name)} }

// route is the path of a relation or function: names are escaped so that
// a "{" or "/" in a name is not read as a template or a path level.
func route(prefix, name string) string { return prefix + url.PathEscape(name) }
