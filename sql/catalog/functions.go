package catalog

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// function is an exposed function with the type oids computed
// relationships are matched on.
type function struct {
	snapshot.Function
	argType uint32 // type of the only input argument; 0 unless exactly one
	retType uint32
	retSet  bool
}

var argModes = map[string]snapshot.ArgMode{
	"i": snapshot.ArgIn,
	"o": snapshot.ArgOut,
	"b": snapshot.ArgInOut,
	"v": snapshot.ArgVariadic,
	"t": snapshot.ArgTable,
}

var volatilities = map[string]snapshot.Volatility{
	"i": snapshot.Immutable,
	"s": snapshot.Stable,
	"v": snapshot.Volatile,
}

// readFunctions returns the functions of the exposed schemas.
func readFunctions(ctx context.Context, tx pgx.Tx, schemas []string) ([]function, error) {
	rows, err := tx.Query(ctx, functionsSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("read functions: %w", err)
	}
	var (
		out                      []function
		f                        function
		types, names, modes      []string
		nDefaults                int16
		isVoid, isRecord, isComp bool
		volatility               string
		media, sendSchema, send  *string
	)
	_, err = pgx.ForEachRow(rows,
		[]any{&f.Schema, &f.Name, &f.Description, &f.Owner, &types, &names, &modes, &nDefaults,
			&f.Variadic, &f.argType, &f.retType, &isVoid, &isRecord, &isComp,
			&f.ReturnType.Schema, &f.ReturnType.Name, &f.retSet, &volatility, &f.Rows, &f.Settings, &f.Grants,
			&media, &sendSchema, &send},
		func() error {
			if media != nil {
				f.Media = &snapshot.MediaDomain{Type: *media, Send: snapshot.QualifiedName{Schema: *sendSchema, Name: *send}}
			}
			f.Arguments = arguments(types, names, modes, int(nDefaults))
			f.Volatility = volatilities[volatility]
			f.Returns, f.ReturnsRecord = returnShape(f.Arguments, f.retSet, isVoid, isRecord, isComp)
			out = append(out, f)
			f = function{}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read functions: %w", err)
	}
	return out, nil
}

// arguments zips pg_proc's parallel argument arrays. proargmodes is NULL
// when every argument is IN; the defaults belong to the last input
// arguments (in, inout, variadic), since OUT and TABLE ones take no value.
func arguments(types, names, modes []string, nDefaults int) []snapshot.Argument {
	args := make([]snapshot.Argument, len(types))
	for i, t := range types {
		args[i] = snapshot.Argument{Type: t, Mode: snapshot.ArgIn}
		if i < len(names) {
			args[i].Name = names[i]
		}
		if i < len(modes) {
			args[i].Mode = argModes[modes[i]]
		}
	}
	for i := len(args) - 1; i >= 0 && nDefaults > 0; i-- {
		if isInput(args[i].Mode) {
			args[i].HasDefault = true
			nDefaults--
		}
	}
	return args
}

func isInput(m snapshot.ArgMode) bool {
	return m == snapshot.ArgIn || m == snapshot.ArgInOut || m == snapshot.ArgVariadic
}

// returnShape classifies a function's result. OUT, INOUT and TABLE
// arguments describe result columns, so their presence makes rows (as in
// PostgREST, even a single OUT column yields {"name": value}); only a bare
// "record" leaves the columns to be known at call time.
func returnShape(args []snapshot.Argument, set, isVoid, isRecord, isComposite bool) (snapshot.ReturnShape, bool) {
	outCols := false
	for _, a := range args {
		if a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgInOut || a.Mode == snapshot.ArgTable {
			outCols = true
		}
	}
	rows := isComposite || outCols
	switch {
	case isVoid:
		return snapshot.ReturnsVoid, false
	case set && rows:
		return snapshot.ReturnsSetOfComposite, false
	case set:
		return snapshot.ReturnsSetOfScalar, isRecord
	case rows:
		return snapshot.ReturnsComposite, false
	default:
		return snapshot.ReturnsScalar, isRecord
	}
}

// readCasts returns the function-backed casts from or to a domain.
func readCasts(ctx context.Context, tx pgx.Tx) ([]snapshot.Cast, error) {
	rows, err := tx.Query(ctx, castsSQL)
	if err != nil {
		return nil, fmt.Errorf("read casts: %w", err)
	}
	casts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (snapshot.Cast, error) {
		var c snapshot.Cast
		err := row.Scan(&c.Source, &c.Target, &c.Function.Schema, &c.Function.Name)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("read casts: %w", err)
	}
	return casts, nil
}

// readMediaHandlers returns the aggregates of the exposed schemas that
// render rows for a media type.
func readMediaHandlers(ctx context.Context, tx pgx.Tx, schemas []string) ([]snapshot.MediaHandler, error) {
	rows, err := tx.Query(ctx, mediaHandlersSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("read media handlers: %w", err)
	}
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (snapshot.MediaHandler, error) {
		var h snapshot.MediaHandler
		err := row.Scan(&h.Media.Type, &h.Media.Send.Schema, &h.Media.Send.Name, &h.Aggregate.Schema, &h.Aggregate.Name,
			&h.Relation.Schema, &h.Relation.Name)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("read media handlers: %w", err)
	}
	return hs, nil
}
