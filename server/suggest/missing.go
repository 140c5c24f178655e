package suggest

import (
	"fmt"
	"strconv"
	"strings"
)

// Missing words names of a kind that do not exist ("exposed schema
// \"x\" does not exist", or the plural for several) and, apart, the
// did-you-mean that follows it ("; did you mean \"y\" for \"x\"?", or ""
// when no existing name is close to any), so that each caller can say
// what it does about them in between.
func Missing(kind string, missing, existing []string) (absent, meant string) {
	quoted := make([]string, len(missing))
	var guesses []string
	for i, m := range missing {
		quoted[i] = strconv.Quote(m)
		if s := Typo(m, existing); s != "" {
			guesses = append(guesses, fmt.Sprintf("%q for %q", s, m))
		}
	}
	absent = kind + " " + quoted[0] + " does not exist"
	if len(missing) > 1 {
		absent = kind + "s " + strings.Join(quoted, ", ") + " do not exist"
	}
	if len(guesses) > 0 {
		meant = "; did you mean " + strings.Join(guesses, ", ") + "?"
	}
	return absent, meant
}
