package reload

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
)

// A database moved from PostgREST keeps PostgREST's names in its
// functions: RAISE SQLSTATE 'PGRST' for a custom error, NOTIFY pgrst
// after a migration. Under SVC's names the first answers as an ordinary
// error and the second is heard only as long as db-channel is unset, so
// at start the server looks for them once and says what it found, which
// naming is in force and what the other would change; each such answer
// then carries its own advice (apierr's traces).

// maxTraceFunctions bounds the functions named in the line: enough to
// find the rest, short enough to read.
const maxTraceFunctions = 5

// NoteDatabaseTraces looks, over a connection of its own to uri, for
// functions outside the system schemas whose source uses the names of a
// naming other than own, the server's (its custom-error SQLSTATE, its
// channel), and logs once what it finds (apierr.NoteTrace). A database that cannot be asked
// is skipped: this is advice, and the server starts without it.
func NoteDatabaseTraces(ctx context.Context, own apierr.Naming, uri string, log *slog.Logger) {
	conn, err := dbexec.Connect(ctx, uri)
	if err != nil {
		log.Debug("the database's functions were not searched for another naming's names", "error", err)
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, mode := range slices.Sorted(maps.Keys(apierr.Namings)) {
		n := apierr.Namings[mode]
		if n == own {
			continue
		}
		raise := `(sqlstate|errcode)\s*=?\s*'` + regexp.QuoteMeta(n.RaiseState)
		notify := `(notify\s+"?` + regexp.QuoteMeta(n.Channel) + `\M|pg_notify\s*\(\s*'` + regexp.QuoteMeta(n.Channel) + `')`
		rows, err := conn.Query(ctx, `
			select p.oid::pg_catalog.regprocedure::text, p.prosrc ~* $1, p.prosrc ~* $2
			from pg_catalog.pg_proc p join pg_catalog.pg_namespace s on s.oid = p.pronamespace
			where s.nspname !~ '^pg_' and s.nspname <> 'information_schema' and (p.prosrc ~* $1 or p.prosrc ~* $2)
			order by 1 limit $3`, raise, notify, maxTraceFunctions+1)
		if err != nil {
			log.Debug("the database's functions were not searched for another naming's names", "error", err)
			return
		}
		var found []string
		for rows.Next() {
			var name string
			var raises, notifies bool
			if err := rows.Scan(&name, &raises, &notifies); err != nil {
				rows.Close()
				return
			}
			var uses []string
			if raises {
				uses = append(uses, "raises SQLSTATE '"+n.RaiseState+"'")
			}
			if notifies {
				uses = append(uses, "notifies "+n.Channel)
			}
			found = append(found, name+" "+strings.Join(uses, " and "))
		}
		rows.Close()
		if len(found) == 0 {
			continue
		}
		if len(found) > maxTraceFunctions {
			found = append(found[:maxTraceFunctions], "and more")
		}
		apierr.NoteTrace(log, own, "database functions", mode, fmt.Sprintf("functions of the database use compat-names = %s's names (%s)",
			mode, strings.Join(found, "; ")))
	}
}
