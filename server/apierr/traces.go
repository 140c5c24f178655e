package apierr

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Traces of another naming. A PostgREST deployment moved to SVC under
// SVC's names still carries PostgREST's names where SVC cannot rename
// them: clients asking for application/vnd.pgrst.* types, functions
// raising SQLSTATE 'PGRST'. Each answer that meets one says so in its
// advice; the log says once per kind which naming is in force and what
// the other would change, so an operator learns it from the first request
// rather than from clients' bug reports.

// TraceLevel is the level of the once-a-kind log line: logging.LevelNotice,
// written at every log-level (apierr imports no package of ours), since
// an operator who set nothing must see it.
const TraceLevel = slog.LevelError + 8

// tracesSeen holds the kinds of trace already logged.
var tracesSeen sync.Map // kind -> struct{}

// trace is a trace of the naming mode met by an answer: its kind (one log
// line each) and what was seen.
type trace struct{ kind, mode, seen string }

// NoteTrace logs, the first time a trace of kind is seen in this process,
// what was seen, own (the naming of the server that saw it), and what
// mode's naming would change (NamingChanges). Later traces of the kind
// log nothing.
func NoteTrace(log *slog.Logger, own Naming, kind, mode, seen string) {
	if _, loaded := tracesSeen.LoadOrStore(kind, struct{}{}); loaded {
		return
	}
	log.Log(context.Background(), TraceLevel, fmt.Sprintf("%s: a trace of compat-names = %s, and this server runs under compat-names = %s; "+
		"compat-names = %s would change %s (said once)", seen, mode, own.Mode(), mode, NamingChanges(own.Mode(), mode)))
}

// NamingChanges lists what switching from the naming of compat-names
// value from to that of to changes for clients and the database, from
// the naming table, so it cannot drift from it.
func NamingChanges(from, to string) string {
	f, t := Namings[from], Namings[to]
	return fmt.Sprintf("error codes %s100.. to %s100.., media types application/vnd.%s.* to application/vnd.%s.*, "+
		"the channel %s to %s, in-database settings %s* to %s*, custom errors RAISE SQLSTATE '%s' to '%s', "+
		"and the environment variables read (%s to %s)",
		f.CodePrefix, t.CodePrefix, f.Vendor, t.Vendor, f.Channel, t.Channel, f.SettingPrefix, t.SettingPrefix,
		raisePattern(f), raisePattern(t), envOf(from), envOf(to))
}

// raisePattern writes n's custom-error SQLSTATE, dots for the characters
// a function chooses ('SVC..', 'PGRST').
func raisePattern(n Naming) string {
	return n.RaiseState + ".."[:5-len(n.RaiseState)]
}

// envOf names the environment variables mode's naming reads.
func envOf(mode string) string {
	if mode == "postgrest" {
		return "PGRST_* and SVC_*"
	}
	return "SVC_* only"
}

// otherRaiseState is the compat-names value whose custom-error SQLSTATE
// state starts with, when it is not own's, or "".
func otherRaiseState(own Naming, state string) string {
	for _, mode := range slices.Sorted(maps.Keys(Namings)) {
		if n := Namings[mode]; n != own && strings.HasPrefix(state, n.RaiseState) {
			return mode
		}
	}
	return ""
}

// writeTrace logs e's trace, once per kind, as seen under naming n.
func (e *Error) writeTrace(n Naming, log *slog.Logger) {
	if e.trace.kind != "" {
		NoteTrace(log, n, e.trace.kind, e.trace.mode, e.trace.seen)
	}
}
