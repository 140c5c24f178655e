package snapshot

import "strings"

// catalogTypeNames maps the catalog's names of built-in types, which a
// function's return type carries, to the names format_type prints and
// columns carry.
var catalogTypeNames = map[string]string{
	"bool": "boolean", "int2": "smallint", "int4": "integer", "int8": "bigint",
	"float4": "real", "float8": "double precision", "varchar": "character varying",
	"bpchar": "character", "timestamptz": "timestamp with time zone",
	"timestamp": "timestamp without time zone", "timetz": "time with time zone",
	"time": "time without time zone",
}

// FormatTypeName is the name format_type prints for the built-in type the
// catalog calls name ("int4" is "integer", "_int4" is "integer[]"); other
// names are kept.
func FormatTypeName(name string) string {
	if elem, ok := strings.CutPrefix(name, "_"); ok {
		return FormatTypeName(elem) + "[]"
	}
	if n, ok := catalogTypeNames[name]; ok {
		return n
	}
	return name
}
