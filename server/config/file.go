package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileEntry is one "key = value" line, value already unquoted and
// interpolated.
type fileEntry struct {
	key, value string
	line       int
}

// readFile reads and parses a configuration file; env resolves $(NAME).
func readFile(path string, env map[string]string) ([]fileEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		// The *PathError would repeat the path after our own prefix.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return parseFile(path, string(data), env)
}

// parseFile parses PostgREST's configuration syntax; path only names the
// file in errors.
func parseFile(path, data string, env map[string]string) ([]fileEntry, error) {
	data = strings.TrimPrefix(data, "\uFEFF") // editors on Windows add a BOM
	var entries []fileEntry
	for i, line := range strings.Split(data, "\n") {
		key, value, ok, err := parseLine(strings.TrimSuffix(line, "\r"), env)
		if err != nil {
			return nil, fmt.Errorf("config file %s, line %d: %s", path, i+1, err)
		}
		if ok {
			entries = append(entries, fileEntry{key: key, value: value, line: i + 1})
		}
	}
	return entries, nil
}

// parseLine parses one line; ok is false for blank and comment lines.
func parseLine(line string, env map[string]string) (key, value string, ok bool, err error) {
	rest := strings.TrimLeft(line, " \t")
	if rest == "" || rest[0] == '#' {
		return "", "", false, nil
	}
	n := 0
	for n < len(rest) && isKeyByte(rest[n]) {
		n++
	}
	key, rest = rest[:n], strings.TrimLeft(rest[n:], " \t")
	if key == "" || !strings.HasPrefix(rest, "=") {
		return "", "", false, errors.New("expected key = value")
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	switch {
	case rest == "" || rest[0] == '#':
		return "", "", false, fmt.Errorf("expected a value after %q", key+" =")
	case rest[0] == '"':
		value, rest, err = parseQuoted(rest[1:], env)
		if err != nil {
			return "", "", false, err
		}
	default:
		n := strings.IndexAny(rest, " \t#")
		if n < 0 {
			n = len(rest)
		}
		value, rest = rest[:n], rest[n:]
		if strings.Contains(value, `"`) {
			return "", "", false, fmt.Errorf("unexpected '\"' inside unquoted value %s", value)
		}
	}
	rest = strings.TrimLeft(rest, " \t")
	if rest != "" && rest[0] != '#' {
		return "", "", false, fmt.Errorf("unexpected %q after the value (quote values containing spaces)", rest)
	}
	return key, value, true, nil
}

// isKeyByte reports whether b may appear in a key: PostgREST keys use
// letters, digits and "-", app.settings.* adds "." and often "_".
func isKeyByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '-' || b == '.' || b == '_'
}

// parseQuoted reads a quoted string whose opening quote is already consumed,
// resolving \" \\ and $(NAME); it returns the value and what follows the
// closing quote.
func parseQuoted(s string, env map[string]string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", errors.New("unterminated quoted string")
			}
			i++
			if s[i] != '"' && s[i] != '\\' {
				return "", "", fmt.Errorf(`unknown escape \%c in quoted string (only \" and \\ are escapes)`, s[i])
			}
			b.WriteByte(s[i])
		case '$':
			// Only a well-formed $(NAME) is interpolated; anything else stays
			// literal, so a password containing "$(" still works.
			if name, n := interpolation(s[i:]); n > 0 {
				b.WriteString(env[name])
				i += n - 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated quoted string")
}

// interpolation matches $(NAME) at the start of s, NAME being an environment
// variable name; n is the length matched, 0 for none.
func interpolation(s string) (name string, n int) {
	if !strings.HasPrefix(s, "$(") {
		return "", 0
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return "", 0
	}
	name = s[2:end]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return "", 0
		}
	}
	if name == "" {
		return "", 0
	}
	return name, end + 1
}

// snapshotPath resolves a relative snapshot file named in the configuration
// file at path against that file's directory, so that a configuration and
// the snapshot beside it work whatever directory svc-serve starts in (the
// environment and flags stay relative to the working directory, as any
// command-line path is). "db" and "db:<schema>" name no file (see
// snapstore.SettingSchema, which config cannot import); a file a join
// would turn into one of them keeps a leading "./".
func snapshotPath(path, value string) string {
	if value == "" || isDBSnapshot(value) || filepath.IsAbs(value) {
		return value
	}
	p := filepath.Join(filepath.Dir(path), value)
	if isDBSnapshot(p) {
		p = "." + string(filepath.Separator) + p
	}
	return p
}

func isDBSnapshot(value string) bool { return value == "db" || strings.HasPrefix(value, "db:") }
