package plan

import "strings"

// ArrayLiteral renders items as a PostgreSQL array literal, every element
// double-quoted, so commas, braces and quotes in values stay data. Plans
// bind it for a variadic argument; query for `in` lists and a payload's
// columns.
func ArrayLiteral(items []string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, it := range items {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('"')
		for _, c := range []byte(it) {
			if c == '"' || c == '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteByte(c)
		}
		sb.WriteByte('"')
	}
	sb.WriteByte('}')
	return sb.String()
}
