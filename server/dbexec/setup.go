package dbexec

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

const (
	// setupFixed sets the transaction-local context every request has in
	// one statement: set_config(..., true) is SET LOCAL, undone at commit,
	// so nothing leaks to the next request on the connection. The role
	// comes first, so the settings after it are checked against it.
	//
	// It also keeps JIT compilation off (setupNoJIT).
	setupRole  = "select pg_catalog.set_config('role', $1, true)"
	setupFixed = ", pg_catalog.set_config('search_path', $2, true), pg_catalog.set_config('request.method', $3, true), " +
		"pg_catalog.set_config('request.path', $4, true), pg_catalog.set_config('request.headers', $5, true), " +
		"pg_catalog.set_config('request.cookies', $6, true), pg_catalog.set_config('request.jwt.claims', $7, true)"
	setupFixedArgs = 7
	// setupNoJIT turns JIT compilation off. PostgreSQL decides to compile
	// from the planned cost, which grows with the table, and then compiles
	// every expression of the statement before running it; the compile
	// checks for no interrupt, so neither statement_timeout, a cancel nor
	// the client leaving stops it, and a statement within the request
	// limits can compile for minutes. The statements SVC writes gain
	// little from it. A role's own settings come after this (Tx.Settings),
	// so a role set to `jit = on` gets it back.
	setupNoJIT = ", pg_catalog.set_config('jit', 'off', true)"
	// setupExplainNoJIT keeps a plan request (Tx.Explain) from compiling
	// by the two settings that say what JIT may compile, with jit itself
	// as the role has it: EXPLAIN (SETTINGS) lists the planner's settings
	// that differ from PostgreSQL's defaults, jit among them but not
	// these, so the plan shows the settings PostgREST's would.
	setupExplainNoJIT = ", pg_catalog.set_config('jit_expressions', 'off', true), pg_catalog.set_config('jit_tuple_deforming', 'off', true)"
	// setupReadOnly makes an implicit transaction read only, as BEGIN ...
	// READ ONLY does an explicit one. Unlike the isolation level, which
	// only BEGIN can choose, read-only may be switched on at any point.
	setupReadOnly = ", pg_catalog.set_config('transaction_read_only', 'on', true)"
	// timezoneSQL applies Prefer: timezone; a statement of its own keeps
	// the set-up one variant for the requests that do not ask.
	timezoneSQL = "select pg_catalog.set_config('timezone', $1, true)"
)

// setupVariant is what the set-up statement's text depends on.
type setupVariant struct {
	settings int  // extra name/value settings
	readOnly bool // the transaction is implicit and read only
	explain  bool // the transaction runs EXPLAIN (setupExplainNoJIT)
}

// setupStatements caches the set-up statement's key by its variant, so
// its text is built and summed once per variant and prepared once per
// connection and variant. Variants of up to setupIndexed settings, all a
// role usually has, are found by index; the rest through a map. Every
// request looks its variant up, and a sync.Map hashes the key each time.
var (
	setupStatements [setupIndexed][2][2]atomic.Pointer[stmtKey]
	setupOthers     sync.Map // setupVariant -> stmtKey
)

// setupIndexed bounds the variants setupStatements finds by index.
const setupIndexed = 8

// setupKey returns the key of the set-up statement of a variant.
func setupKey(v setupVariant) stmtKey {
	if v.settings < setupIndexed {
		slot := &setupStatements[v.settings][b2i(v.readOnly)][b2i(v.explain)]
		if key := slot.Load(); key != nil {
			return *key
		}
		key := newStmtKey("", "", buildSetupSQL(v), 0)
		slot.Store(&key)
		return key
	}
	if key, ok := setupOthers.Load(v); ok {
		return key.(stmtKey)
	}
	key, _ := setupOthers.LoadOrStore(v, newStmtKey("", "", buildSetupSQL(v), 0))
	return key.(stmtKey)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// buildSetupSQL writes the set-up statement of a variant.
func buildSetupSQL(v setupVariant) string {
	var b strings.Builder
	b.WriteString(setupRole)
	b.WriteString(setupFixed)
	if v.explain {
		b.WriteString(setupExplainNoJIT)
	} else {
		b.WriteString(setupNoJIT)
	}
	for i := range v.settings {
		p := setupFixedArgs + 2*i + 1
		fmt.Fprintf(&b, ", pg_catalog.set_config($%d, $%d, true)", p, p+1)
	}
	if v.readOnly {
		b.WriteString(setupReadOnly)
	}
	return b.String()
}

// setupArgs appends setupSQL's bind values for tx to room and returns
// room and them: the texts themselves, not copies (argText).
func setupArgs(room [][]byte, tx *Tx) (_, args [][]byte) {
	start := len(room)
	for _, v := range [setupFixedArgs]string{tx.Role, tx.SearchPath, tx.Method, tx.Path, tx.Headers, tx.Cookies, tx.Claims} {
		room = append(room, argText(v))
	}
	for _, kv := range tx.Settings {
		room = append(room, argText(kv[0]), argText(kv[1]))
	}
	return room, room[start:len(room):len(room)]
}

// argText is s as a bind value, sharing s's bytes rather than copying
// them: pgx only reads a bind value, while it writes the Bind message, and
// the request's headers and claims can run to kilobytes. It is never nil,
// since pgx sends a nil value as NULL.
func argText(s string) []byte {
	if s == "" {
		return emptyArg
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// emptyArg is the empty bind value; pgx only reads it.
var emptyArg = []byte{}

// beginSQL opens the request transaction.
func beginSQL(tx *Tx) string {
	level := tx.Isolation
	if level == "" {
		level = "read committed"
	}
	if tx.ReadOnly {
		return "begin isolation level " + level + " read only"
	}
	return "begin isolation level " + level
}
