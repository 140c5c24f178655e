// Package server is SVC's HTTP handler: the routes and the one pipeline
// every request of the API goes through (pipeline.go), and response
// writing. It wires the pure stages (request -> plan -> query) to the
// database (server/dbexec), and is the only package that knows both HTTP
// and the database. What keeps the snapshot and configuration current is
// server/reload; the admin server and metrics are server/admin.
//
// Its files are named for what they hold: pipeline.go the stages in
// order; auth.go authentication; transaction.go the transaction's
// context and set-up; read.go, write.go, call.go and root.go how each
// kind of request is planned, built and answered; rows.go the answer of
// rows, a relation's or a function's; explain.go the plan media type;
// respond.go what answers share; shapecache.go the cache of shapes, and
// writeshape.go the shapes of inserts; observe.go the access log and
// Server-Timing.
//
// # Words
//
// Some words here have meant more than one thing; in this package and
// those under it they mean:
//
//   - shape: a request with its values taken out: its method, target,
//     parameters' names and operators, and headers that change the
//     statement, keyed by request.Template. Two GETs of /books?id=eq.1 and
//     /books?id=eq.2 have one shape. The shape cache (shapecache.go) keeps,
//     per shape, the statements planned for its first request, and binds
//     a later request's values into them. A function's return shape
//     (snapshot.ReturnShape: void, a scalar, a set of rows) is another
//     thing, named by the snapshot; the set-up statement's variants
//     (dbexec) are named variants, not shapes.
//   - keep, kept, bind: a shape is kept once its statements hold none of
//     the request's values (a request whose statements cannot be made so
//     is answered but not kept); binding puts a request's values back in.
//   - applied (appliedPrefs, formerly "honoured"): which of a request's
//     Prefer values took effect, for the Preference-Applied header. A
//     preference is applied, never honoured, ignored or accepted.
//   - stage: one step of a request's story, in pipeline's order: parse,
//     authenticate, plan, build, transaction, respond.
//   - action: what a request's plan is built into (pipeline.go): its
//     transaction's set-up (begin), its statements (steps) and its
//     answer (respond). A kept shape is the action of the requests of
//     that shape.
//   - precheck: what a route refuses of a parsed request before it is
//     authenticated and the transaction's context (role, claims) built;
//     the root's schema.
//     A Tx's Check (dbexec) is another thing: what must hold of a
//     statement's results before its transaction may commit.
//   - refuse: to answer a request with an error before it reaches the
//     database (refusePlan, refuseWrite).
//   - mark: reading the primary's WAL position in the round trip that
//     commits a write, for the SVC-Commit-LSN header (replicas.go).
//   - reads: a Tx that only reads, which a replica may serve. The shape
//     caches of reads and calls are readShapes and callShapes.
//   - releaseAndYield (dbexec, formerly "handBack"): giving a connection
//     back to the pool, then yielding so a waiting request runs first.
//   - settle (server/http1): deciding, as an answer's header goes out,
//     what becomes of the request body not read, and so of the
//     connection's keep-alive.
//   - observation: what the pipeline tells the access log, log-query and
//     Server-Timing about a request (its statement, the database's time);
//     it travels in the request's context (observe.go).
package server
