package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// setter parses and validates one value and stores it in c. Its error says
// only what was expected ("expected ..."); Load adds the key, the value and
// where it came from, so each setter stays a one-liner in the table.
type setter func(c *Config, v string) error

// expected is the error a setter returns.
func expected(what string) error { return errors.New("expected " + what) }

// text accepts any string, including the empty one.
func text(field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		*field(c) = v
		return nil
	}
}

// nonEmpty accepts any string but the empty one; what describes it.
func nonEmpty(what string, field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		if v == "" {
			return expected(what)
		}
		*field(c) = v
		return nil
	}
}

// oneOf accepts one of options, in any letter case, stored lower-case.
func oneOf(options []string, field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		v = strings.ToLower(strings.TrimSpace(v))
		if !slices.Contains(options, v) {
			return expected("one of " + strings.Join(options, ", "))
		}
		*field(c) = v
		return nil
	}
}

// logQuery sets log-query: PostgREST 13's values, or PostgREST 14's
// boolean for the same two choices, so that either's configuration runs.
func logQuery(c *Config, v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		v = "main-query"
	case "false":
		v = "disabled"
	}
	return oneOf([]string{"disabled", "main-query"}, func(c *Config) *string { return &c.LogQuery })(c, v)
}

// wholeExpectation words the accepted range, leaving out a maximum no one
// would reach so the message stays short.
func wholeExpectation(unit string, lo, hi int) string {
	if hi >= math.MaxInt32 {
		return fmt.Sprintf("a whole number%s of at least %d", unit, lo)
	}
	return fmt.Sprintf("a whole number%s from %d to %d", unit, lo, hi)
}

// parseWhole is strconv.Atoi within [lo, hi], ignoring surrounding spaces
// since env values are often padded.
func parseWhole(v string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n >= lo && n <= hi
}

// whole accepts an integer in [lo, hi].
func whole(lo, hi int, field func(*Config) *int) setter {
	return func(c *Config, v string) error {
		n, ok := parseWhole(v, lo, hi)
		if !ok {
			return expected(wholeExpectation("", lo, hi))
		}
		*field(c) = n
		return nil
	}
}

// seconds accepts a whole number of seconds, at least lo, as PostgREST
// writes durations; the bound keeps the Duration from overflowing, and
// the number from overflowing an int where that has 32 bits.
func seconds(lo int, field func(*Config) *time.Duration) setter {
	hi := int(min(math.MaxInt64/int64(time.Second), math.MaxInt))
	return func(c *Config, v string) error {
		n, ok := parseWhole(v, lo, hi)
		if !ok {
			return expected(wholeExpectation(" of seconds", lo, hi))
		}
		*field(c) = time.Duration(n) * time.Second
		return nil
	}
}

// boolean accepts true or false in any letter case, and 1 or 0, as
// PostgREST reads them: deployments written for it set
// PGRST_DB_PLAN_ENABLED=1. The file parser has already removed quotes, so
// bare and quoted forms arrive alike. PostgREST also takes any other
// number (positive for true); SVC refuses those, since 2 or -1 is more
// likely a slip than a choice.
func boolean(field func(*Config) *bool) setter {
	return func(c *Config, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1":
			*field(c) = true
		case "false", "0":
			*field(c) = false
		default:
			return expected("true or false (or 1 or 0)")
		}
		return nil
	}
}

// list accepts comma-separated names, trimmed; required refuses an empty
// list. An empty item ("a,,b", "a,") is refused rather than dropped: it is a
// typo more often than not, and a silently shorter list is hard to notice.
func list(required bool, field func(*Config) *[]string) setter {
	what := "a comma-separated list of names, without empty items"
	if required {
		what = "a comma-separated list of one or more names, without empty items"
	}
	return func(c *Config, v string) error {
		items := []string{}
		if strings.TrimSpace(v) != "" {
			for item := range strings.SplitSeq(v, ",") {
				item = strings.TrimSpace(item)
				if item == "" {
					return expected(what)
				}
				items = append(items, item)
			}
		}
		if required && len(items) == 0 {
			return expected(what)
		}
		*field(c) = items
		return nil
	}
}

// fileMode accepts an octal permission such as 660 or 0660.
func fileMode(field func(*Config) *os.FileMode) setter {
	return func(c *Config, v string) error {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
		if err != nil || n > 0o777 {
			return expected("an octal file mode from 000 to 777, such as 660")
		}
		*field(c) = os.FileMode(n)
		return nil
	}
}

// optionalPort accepts a TCP port from 0 to 65535, or nothing: the empty
// value stores -1, for a listener that is not wanted.
func optionalPort(field func(*Config) *int) setter {
	return func(c *Config, v string) error {
		if strings.TrimSpace(v) == "" {
			*field(c) = -1
			return nil
		}
		n, ok := parseWhole(v, 0, 65535)
		if !ok {
			return expected("a whole number from 0 to 65535, or nothing for no admin server")
		}
		*field(c) = n
		return nil
	}
}

// textOrFile is text, except that "@<path>" reads the value from that file
// (one trailing newline dropped), as PostgREST reads db-uri and jwt-secret,
// so that secrets can live in mounted files rather than in the
// configuration. The file is read again on every load, reloads included.
func textOrFile(field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		if path, ok := strings.CutPrefix(v, "@"); ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return expected("a readable file after @ (" + err.Error() + ")")
			}
			v = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		}
		*field(c) = v
		return nil
	}
}

// uriList accepts connection URIs separated by commas, or "@<path>" to
// read them from that file, one a line (so they can hold passwords the
// configuration should not). A comma separates two entries only where a
// URI scheme (postgres:// or postgresql://) follows, since a multi-host
// URI has commas of its own; one at the end of the list is dropped, as
// are blank lines. Empty entries are dropped rather than refused:
// refusing them would echo the value, passwords and all, in the error.
func uriList(field func(*Config) *[]string) setter {
	return func(c *Config, v string) error {
		if path, ok := strings.CutPrefix(v, "@"); ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return expected("a readable file after @ (" + err.Error() + ")")
			}
			v = string(data)
		}
		items := []string{}
		for line := range strings.Lines(v) {
			for _, item := range splitURIs(line) {
				if item = strings.TrimRight(strings.TrimSpace(item), ","); item != "" {
					items = append(items, item)
				}
			}
		}
		*field(c) = items
		return nil
	}
}

// splitURIs splits s at each comma a URI scheme follows.
func splitURIs(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ',' {
			continue
		}
		rest := strings.ToLower(strings.TrimLeft(s[i+1:], " \t"))
		if strings.HasPrefix(rest, "postgres://") || strings.HasPrefix(rest, "postgresql://") {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
