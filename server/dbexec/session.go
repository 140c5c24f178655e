package dbexec

import "github.com/jackc/pgx/v5/pgconn"

// sessionKey is where a session's pgconn custom data holds its
// sessionState, so that what SVC keeps of a session is born and dies with
// it.
const sessionKey = "svc.session"

// sessionState is what SVC keeps of one session. Its parts live in one
// record under one key, which a request looks up once (runTx) and hands
// down: a map lookup each part, per use, cost a request several.
type sessionState struct {
	statements *stmtCache     // stmts
	rowTypes   *rowTypeLedger // ledger
	watch      *clientWatch   // watchClient
	// implicit is what setUpSession recorded: false when it never ran,
	// which keeps BEGIN (needsBegin).
	implicit bool
	// epoch is the pool's retirement count when the session was opened,
	// once epochSet (poolSessions.recordEpoch).
	epoch    uint64
	epochSet bool
	// takenTick and shelvedTick are the shelf's tick when the session
	// last left pgxpool and when it was last shelved (shelf.go).
	takenTick, shelvedTick uint64
	// args holds a request's bind values while its pipeline is written
	// (requestCalls): pgx copies them into its messages as they are sent,
	// and the request has the session to itself, so one array per session
	// serves every request on it rather than one per request.
	args [12][]byte
}

// sessionOf returns pc's sessionState, creating it on first use.
func sessionOf(pc *pgconn.PgConn) *sessionState {
	data := pc.CustomData()
	if s, ok := data[sessionKey].(*sessionState); ok {
		return s
	}
	s := &sessionState{}
	data[sessionKey] = s
	return s
}
