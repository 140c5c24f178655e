package dbconfig

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/apierr"
)

// In-database settings under another naming's prefix (pgrst.db_max_rows
// while SVC's names are in force) are PostgREST's configuration, written
// for a server that reads them. Ignoring them would serve with a
// configuration other than the one written down, in silence; reading them
// too would make two prefixes configure one key. So such a setting stops
// the start and fails each configuration reload, with the statements that
// move it to the naming in force, unless this naming's own setting of the
// same key is there too (it would win under either naming): that one is
// only logged.

// foreignSetting is a setting of a naming not in force that the database
// gives the authenticator: its full name, the key it would set, its value,
// where it is set (for the fix), and whether this naming's setting of the
// same key shadows it.
type foreignSetting struct {
	name, key, value, mode string
	where                  string // "ROLE x", "ROLE x IN DATABASE y", "DATABASE y", or "" for neither
	shadowed               bool
}

// ForeignSettingsError refuses in-database settings of a naming not in
// force (see above). Its message is the fix.
type ForeignSettingsError struct {
	own      apierr.Naming // the naming the server runs under
	settings []foreignSetting
}

func (e *ForeignSettingsError) Error() string {
	var names, fixes []string
	mode := ""
	for _, s := range e.settings {
		names = append(names, s.name)
		mode = s.mode
		own := e.own.SettingPrefix + strings.TrimPrefix(s.name, apierr.Namings[s.mode].SettingPrefix)
		if s.where == "" {
			fixes = append(fixes, fmt.Sprintf("set %s = %s instead of %s where it is set (db-pre-config's function, or postgresql.conf)",
				own, quoteValue(s.value), s.name))
			continue
		}
		fixes = append(fixes, fmt.Sprintf("ALTER %s SET %s = %s; ALTER %s RESET %s;", s.where, own, quoteValue(s.value), s.where, s.name))
	}
	return fmt.Sprintf("in-database setting%s %s %s compat-names = %s's, and this server runs under compat-names = %s, "+
		"which reads %s* settings: set compat-names = %s to read %s, or run: %s",
		plural(len(names)), strings.Join(names, ", "), isAre(len(names)), mode, e.own.Mode(), e.own.SettingPrefix,
		mode, them(len(names)), strings.Join(fixes, " "))
}

// foreignSettingNames are the setting names of the namings other than own
// for the in-database setting suffixes given ("db_max_rows"), by the
// compat-names value they belong to.
func foreignSettingNames(own apierr.Naming, suffixes []string) map[string]string {
	out := map[string]string{}
	for mode, n := range apierr.Namings {
		if n.SettingPrefix == own.SettingPrefix {
			continue
		}
		for _, s := range suffixes {
			out[n.SettingPrefix+s] = mode
		}
	}
	return out
}

// checkForeignSettings judges the foreign settings read (full name ->
// value, only those set) against own (key -> value, this naming's), and
// returns the shadowed ones to log, or the refusal.
func checkForeignSettings(ctx context.Context, tx pgx.Tx, naming apierr.Naming, foreign map[string]string, modes map[string]string,
	byName map[string]string, own map[string]string) ([]foreignSetting, error) {
	if len(foreign) == 0 {
		return nil, nil
	}
	where, err := settingPlaces(ctx, tx)
	if err != nil {
		return nil, err
	}
	var refused, shadowed []foreignSetting
	for _, name := range slices.Sorted(maps.Keys(foreign)) {
		mode := modes[name]
		key := byName[strings.TrimPrefix(name, apierr.Namings[mode].SettingPrefix)]
		_, isShadowed := own[key]
		s := foreignSetting{name: name, key: key, value: foreign[name], mode: mode, where: where[name], shadowed: isShadowed}
		if isShadowed {
			shadowed = append(shadowed, s)
		} else {
			refused = append(refused, s)
		}
	}
	if len(refused) > 0 {
		return shadowed, &ForeignSettingsError{own: naming, settings: refused}
	}
	return shadowed, nil
}

// settingPlaces finds where the role and database settings of the
// session are set, the most specific place first, as PostgreSQL applies
// them: "ROLE r IN DATABASE d", then "ROLE r", then "DATABASE d".
// pg_db_role_setting is readable by any role.
func settingPlaces(ctx context.Context, tx pgx.Tx) (map[string]string, error) {
	rows, err := tx.Query(ctx, `
		select split_part(c, '=', 1), r.rolname, d.datname
		from pg_catalog.pg_db_role_setting s
		left join pg_catalog.pg_roles r on r.oid = s.setrole
		left join pg_catalog.pg_database d on d.oid = s.setdatabase,
		pg_catalog.unnest(s.setconfig) c
		where (s.setrole = 0 or r.rolname = current_user) and (s.setdatabase = 0 or d.datname = pg_catalog.current_database())
		order by (s.setrole <> 0 and s.setdatabase <> 0) desc, s.setrole <> 0 desc`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var role, db *string
		if err := rows.Scan(&name, &role, &db); err != nil {
			return nil, err
		}
		if _, seen := out[name]; seen {
			continue
		}
		switch {
		case role != nil && db != nil:
			out[name] = "ROLE " + pgx.Identifier{*role}.Sanitize() + " IN DATABASE " + pgx.Identifier{*db}.Sanitize()
		case role != nil:
			out[name] = "ROLE " + pgx.Identifier{*role}.Sanitize()
		case db != nil:
			out[name] = "DATABASE " + pgx.Identifier{*db}.Sanitize()
		}
	}
	return out, rows.Err()
}

// shadowedMessage is the log line of a foreign setting the setting of the
// same key of naming n, the server's, overrides.
func shadowedMessage(n apierr.Naming, s foreignSetting) string {
	own := n.SettingPrefix + strings.TrimPrefix(s.name, apierr.Namings[s.mode].SettingPrefix)
	return fmt.Sprintf("in-database setting %s is compat-names = %s's and is not read under compat-names = %s; %s, which is read, sets %s",
		s.name, s.mode, n.Mode(), own, s.key)
}

// quoteValue is value as an SQL string literal.
func quoteValue(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
