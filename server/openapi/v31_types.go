package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The OpenAPI 3.1 objects the document uses, with only the fields SVC
// fills. Maps marshal with sorted keys, so the output is deterministic.

type document31 struct {
	OpenAPI    string                `json:"openapi"`
	Info       info                  `json:"info"`
	Servers    []server31            `json:"servers"`
	Tags       []tag31               `json:"tags,omitempty"`
	Paths      map[string]*pathItem3 `json:"paths"`
	Components components31          `json:"components"`
	Security   []map[string][]string `json:"security,omitempty"`
}

type server31 struct {
	URL string `json:"url"`
}

type tag31 struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type components31 struct {
	Schemas         map[string]*jsonSchema      `json:"schemas"`
	Parameters      map[string]*parameter3      `json:"parameters"`
	Responses       map[string]*response3       `json:"responses"`
	SecuritySchemes map[string]*securityScheme3 `json:"securitySchemes"`
}

type pathItem3 struct {
	Get    *operation3 `json:"get,omitempty"`
	Post   *operation3 `json:"post,omitempty"`
	Put    *operation3 `json:"put,omitempty"`
	Patch  *operation3 `json:"patch,omitempty"`
	Delete *operation3 `json:"delete,omitempty"`
}

type operation3 struct {
	OperationID string                `json:"operationId"`
	Tags        []string              `json:"tags"`
	Summary     string                `json:"summary"`
	Description string                `json:"description,omitempty"`
	Parameters  []*parameter3         `json:"parameters,omitempty"`
	RequestBody *requestBody3         `json:"requestBody,omitempty"`
	Responses   map[string]*response3 `json:"responses"`
}

// parameter3 is a parameter object, or (Ref alone) a reference to one in
// the components.
type parameter3 struct {
	Ref         string      `json:"$ref,omitempty"`
	Name        string      `json:"name,omitempty"`
	In          string      `json:"in,omitempty"`
	Description string      `json:"description,omitempty"`
	Required    bool        `json:"required,omitempty"`
	Explode     *bool       `json:"explode,omitempty"`
	Schema      *jsonSchema `json:"schema,omitempty"`
}

type requestBody3 struct {
	Required bool                  `json:"required,omitempty"`
	Content  map[string]*mediaType `json:"content"`
}

// mediaType is a media type object; without Schema, any body of the
// type (the raw bytes of a media handler or function).
type mediaType struct {
	Schema *jsonSchema `json:"schema,omitempty"`
}

// response3 is a response object, or (Ref alone) a reference to one.
type response3 struct {
	Ref         string                `json:"$ref,omitempty"`
	Description string                `json:"description,omitempty"`
	Headers     map[string]*header3   `json:"headers,omitempty"`
	Content     map[string]*mediaType `json:"content,omitempty"`
}

type header3 struct {
	Description string      `json:"description"`
	Schema      *jsonSchema `json:"schema"`
}

type securityScheme3 struct {
	Type         string `json:"type"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat"`
	Description  string `json:"description"`
}

// jsonSchema is a JSON Schema (2020-12, the dialect of OpenAPI 3.1).
// Type is a string, or a list of two for a nullable value
// (["integer", "null"]). A schema with no field set accepts any JSON
// value (json and jsonb).
type jsonSchema struct {
	Ref         string       `json:"$ref,omitempty"`
	Type        any          `json:"type,omitempty"`
	Format      string       `json:"format,omitempty"`
	Description string       `json:"description,omitempty"`
	Items       *jsonSchema  `json:"items,omitempty"`
	Enum        []any        `json:"enum,omitempty"`
	Default     any          `json:"default,omitempty"`
	MinLength   *int         `json:"minLength,omitempty"`
	MaxLength   *int         `json:"maxLength,omitempty"`
	Minimum     *json.Number `json:"minimum,omitempty"`
	Maximum     *json.Number `json:"maximum,omitempty"`
	// ExclusiveMinimum and ExclusiveMaximum are numbers, as in JSON
	// Schema 2020-12 (OpenAPI 3.0's booleans are gone).
	ExclusiveMinimum *json.Number           `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *json.Number           `json:"exclusiveMaximum,omitempty"`
	Pattern          string                 `json:"pattern,omitempty"`
	ReadOnly         bool                   `json:"readOnly,omitempty"`
	Properties       map[string]*jsonSchema `json:"properties,omitempty"`
	Required         []string               `json:"required,omitempty"`
	OneOf            []*jsonSchema          `json:"oneOf,omitempty"`
	AnyOf            []*jsonSchema          `json:"anyOf,omitempty"`
	AllOf            []*jsonSchema          `json:"allOf,omitempty"`
	Examples         []string               `json:"examples,omitempty"`
}

// componentName turns a database name into a component key and an
// operationId part: OpenAPI allows only [A-Za-z0-9._-] in component keys,
// and "." separates the parts of the names SVC makes, so every other byte,
// "." and "-" included, is written as "-" and its hex code. The mapping is
// one to one, so two names never share a component.
func componentName(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		clean = nameSafe(s[i])
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if nameSafe(s[i]) {
			b.WriteByte(s[i])
			continue
		}
		fmt.Fprintf(&b, "-%02X", s[i])
	}
	return b.String()
}

func nameSafe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// ref3 points at a component of section ("schemas", "parameters",
// "responses"); key is already a component name.
func ref3(section, key string) string { return "#/components/" + section + "/" + key }
