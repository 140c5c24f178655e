package request

import "bytes"

// maxJSONDepth is how deeply arrays and objects may nest, as
// encoding/json allows.
const maxJSONDepth = 10000

// validJSON reports whether src is one JSON value with nothing but
// whitespace around it, exactly as json.Valid does (FuzzValidJSON holds
// the two together), and, when the value is an object and key is not
// nil, calls key for each of its own members' keys, as members does: with
// the key's span in src and whether it must be decoded (escapes, invalid
// UTF-8). A body is checked and its keys read in one pass rather than two,
// and in a loop that costs a fraction of json.Valid's scanner, which calls
// a function for each byte.
func validJSON(src []byte, key func(start, end int, escaped bool)) bool {
	const (
		wantValue = iota
		wantKey
		afterValue
	)
	var room [32]byte
	open := room[:0] // '{' or '[' for each container open
	state, i := wantValue, 0
	for {
		for i < len(src) && isJSONSpace(src[i]) {
			i++
		}
		switch state {
		case wantValue:
			if i == len(src) {
				return false
			}
			c := src[i]
			switch {
			case c == '{' || c == '[':
				if len(open) == maxJSONDepth {
					return false
				}
				open = append(open, c)
				i++
				state = wantKey
				if c == '[' {
					state = wantValue
				}
				for i < len(src) && isJSONSpace(src[i]) {
					i++
				}
				if i < len(src) && src[i] == c+2 { // '}' or ']': empty
					open = open[:len(open)-1]
					i++
					state = afterValue
				}
				continue
			case c == '"':
				end, _, ok := scanJSONString(src, i)
				if !ok {
					return false
				}
				i = end
			case c == '-' || '0' <= c && c <= '9':
				end, ok := scanJSONNumber(src, i)
				if !ok {
					return false
				}
				i = end
			case c == 't' && bytes.HasPrefix(src[i:], []byte("true")):
				i += len("true")
			case c == 'f' && bytes.HasPrefix(src[i:], []byte("false")):
				i += len("false")
			case c == 'n' && bytes.HasPrefix(src[i:], []byte("null")):
				i += len("null")
			default:
				return false
			}
			state = afterValue
		case wantKey:
			if i == len(src) || src[i] != '"' {
				return false
			}
			end, escaped, ok := scanJSONString(src, i)
			if !ok {
				return false
			}
			if len(open) == 1 && key != nil {
				key(i+1, end-1, mustDecode(src[i+1:end-1], escaped))
			}
			for i = end; i < len(src) && isJSONSpace(src[i]); i++ {
			}
			if i == len(src) || src[i] != ':' {
				return false
			}
			i++
			state = wantValue
		case afterValue:
			if len(open) == 0 {
				return i == len(src)
			}
			if i == len(src) {
				return false
			}
			top := open[len(open)-1]
			switch c := src[i]; {
			case c == ',':
				state = wantValue
				if top == '{' {
					state = wantKey
				}
			case c == top+2: // the container's own close
				open = open[:len(open)-1]
			default:
				return false
			}
			i++
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanJSONString checks the string whose quote is at src[i], and returns
// the index after its closing quote and whether it holds an escape.
func scanJSONString(src []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '"':
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			if j++; j == len(src) {
				return 0, false, false
			}
			switch src[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(src) {
					return 0, false, false
				}
				for _, h := range src[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, false, false
					}
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

// scanJSONNumber checks the number starting at src[i], and returns the
// index after it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanJSONNumber(src []byte, i int) (end int, ok bool) {
	digits := func() bool {
		start := i
		for i < len(src) && '0' <= src[i] && src[i] <= '9' {
			i++
		}
		return i > start
	}
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(src) && src[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}
