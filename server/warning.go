package server

import (
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/snapshot"
)

// legacyNamesWarning is the Warning header PostgREST sends with an answer
// whose parameters addressed aliased embeds by their relations' names
// (url-use-legacy-target-names): a deprecation, code 299, naming the
// alias to use for each; "" when there is none. The agent is the product
// of the naming p was planned under with SVC's version, as PostgREST's is
// its own.
func legacyNamesWarning(p *plan.Read) string {
	n := &p.Node
	names := n.LegacyNames()
	if len(names) == 0 {
		return ""
	}
	updates := make([]string, len(names))
	for i, l := range names {
		updates[i] = "`" + l.Name + "` to `" + l.Alias + "`"
	}
	text := "Embedded resource was referenced by relation name even though it has an alias. " +
		"This is deprecated and will stop working in a future release. Update " + strings.Join(updates, ", ") +
		" in query string filters, orders or limits."
	return "299 " + p.Product + "v" + snapshot.SVCVersion + " " + apierr.QuotedString(text)
}
