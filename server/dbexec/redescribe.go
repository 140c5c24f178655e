package dbexec

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
)

// A statement prepared on a session keeps the types PostgreSQL chose for
// its parameters when it was first parsed. A migration that changes a
// column's type or replaces a function with another signature leaves it
// comparing a text column with an integer parameter: the session answers
// 42883 "operator does not exist" where the same statement parsed now runs
// (a recreated enum, with the type's id gone, gives XX000 instead).
// staleStatements tells such a statement from a request that is wrong by
// parsing the request's statements again, without running them.

// redescribeSetup makes a session parse as the request does: PostgreSQL
// resolves names and checks schema USAGE as the current role, along the
// search_path.
const redescribeSetup = "select pg_catalog.set_config('role', $1, true), pg_catalog.set_config('search_path', $2, true)"

// suspect reports whether err is one a statement prepared before a
// migration may give where a new one would not: a parse-time error
// (classes 42 and 22, the latter from a value read as the parameter's old
// type) other than a missing privilege, which is checked when the
// statement runs, or what staleCatalog suspects.
func suspect(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || len(pgErr.Code) != 5 {
		return false
	}
	switch pgErr.Code[:2] {
	case "22":
		return true
	case "42":
		return pgErr.Code != "42501"
	}
	return staleCatalog(err)
}

// staleStatements reports whether a statement of the request prepared on
// pc no longer means what it did when it was prepared: parsed again as
// the request's role, its parameters or result columns have other types.
// Each such statement is dropped from pc's cache. A statement that cannot
// be parsed now leaves the answer to the request's own error: parsed
// afresh it fails too. It costs one round trip and runs nothing.
func staleStatements(ctx context.Context, pc *pgconn.PgConn, tx *Tx, steps []Step) (bool, error) {
	cache := statementsOf(pc)
	var keys []stmtKey
	var descs []*pgconn.StatementDescription
	add := func(sql string, sum uint64) {
		key := newStmtKey(tx.Role, tx.SearchPath, sql, sum)
		if e, ok := cache.entry(key); ok {
			keys = append(keys, key)
			descs = append(descs, e.desc)
		}
	}
	if tx.PreRequest != nil {
		add(tx.PreRequest.SQL, tx.PreRequest.Sum)
	}
	for _, st := range steps {
		add(st.Stmt.SQL, st.Stmt.Sum)
	}
	if len(keys) == 0 || pc.IsClosed() || pc.TxStatus() != 'I' {
		return false, nil
	}
	pl := pc.StartPipeline(ctx)
	pl.SendQueryParams(redescribeSetup, [][]byte{[]byte(tx.Role), []byte(tx.SearchPath)}, nil, nil, nil)
	for _, key := range keys {
		pl.SendPrepare("", key.sql, nil)
	}
	if err := pl.Sync(); err != nil {
		pl.Close()
		return false, err
	}
	stale := false
	for i := 0; ; {
		res, err := pl.GetResults()
		if err != nil {
			pl.Close()
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) {
				return stale, nil
			}
			return false, err
		}
		switch res := res.(type) {
		case *pgconn.ResultReader:
			if _, err := res.Close(); err != nil {
				pl.Close()
				return false, nil // the role or search path was refused
			}
		case *pgconn.StatementDescription:
			if !sameTypes(descs[i], res) {
				stale = true
				cache.evict(keys[i])
			}
			i++
		case *pgconn.PipelineSync:
			return stale, pl.Close()
		case nil:
			pl.Close()
			return stale, errors.New("pipeline ended before its sync")
		}
	}
}

// sameTypes reports whether two descriptions of one statement have the
// same parameter types and result columns: types, type modifiers and
// names, which PostgreSQL also compares before it runs a prepared
// statement planned again.
func sameTypes(a, b *pgconn.StatementDescription) bool {
	if !slices.Equal(a.ParamOIDs, b.ParamOIDs) || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		fa, fb := &a.Fields[i], &b.Fields[i]
		if fa.DataTypeOID != fb.DataTypeOID || fa.TypeModifier != fb.TypeModifier || fa.Name != fb.Name {
			return false
		}
	}
	return true
}
