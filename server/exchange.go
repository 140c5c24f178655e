package server

import (
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/server/stream"
	"github.com/svc-dev/svc/server/txroute"
	"github.com/svc-dev/svc/snapshot"
)

// The words every stage of the story speaks, at its foot so that each
// file above may use them and none of them reaches back up: the Server,
// a kind of request (route), what it builds (action), and the request on
// its way (exchange).

// Server serves the API of the snapshot in force over a connection pool.
type Server struct {
	cfg *config.Config
	// names is the naming cfg's compat-names chose, handed to every stage
	// that writes a name: error codes, media types, a call's aliases.
	names apierr.Naming
	// verbosity is how much of an error a client is told
	// (client-error-verbosity).
	verbosity apierr.Verbosity
	pool      *pgxpool.Pool
	snapshots *reload.Snapshots
	log       *slog.Logger
	// handler is the router behind the CORS middleware.
	handler http.Handler
	// jwt verifies bearer tokens; nil when no JWT key is configured.
	jwt *auth.Verifier
	// appSettings are the app.settings.* keys, set in every transaction.
	appSettings [][2]string
	// searchPaths are the search paths of the schemas served, made once
	// (newTxShape).
	searchPaths map[string]string
	// preRequest calls db-pre-request; nil when none is configured.
	preRequest *query.Statement
	// observer times, counts and logs the requests (server/observe).
	observer observe.Observer
	// shapes keeps the statements of shapes seen before: reads of
	// relations, GET and HEAD calls, inserts (server/shapes).
	shapes *shapes.Cache
	// limits are the request-max-* keys, which the pipeline checks once a
	// request is parsed.
	limits request.Limits
	// bodyLimits are the server-* keys reading a body obeys.
	bodyLimits request.BodyLimits
	// txs runs the requests' transactions, on the primary or a replica
	// (server/txroute).
	txs txroute.Router
	// rootDocs keeps the root's OpenAPI documents, and stopRootDocs stops
	// it hearing of snapshot swaps (Close).
	rootDocs     *openapi.Cache
	stopRootDocs func()
	// refresh is how the snapshots served are brought up to date, which
	// hints about names they lack tell (plan.Refresh).
	refresh plan.Refresh
	// misconfigured is the advice on relations and functions not found
	// when the configuration's typos may explain them (plan.Options).
	misconfigured string
	// planning is what planning a request takes of the configuration.
	planning plan.Options
	// streaming is what answers that may outgrow the buffer obey
	// (server/stream): its budget is shared by every Server of the
	// process, and its Streams are the sessions slow clients may hold,
	// half of db-pool, which a JSON Lines body being read holds too.
	streaming stream.Settings
}

// route is what one kind of request plugs into the pipeline; P is its
// plan, what planning hands to building.
type route[P any] struct {
	kind request.Kind
	// cached is set when the shape cache keeps the shapes of the route's
	// GET and HEAD requests, in part (server/shapes).
	cached bool
	part   shapes.Part
	// precheck, when set, refuses what the parsed request asks before it
	// is authenticated: what needs no role to be wrong.
	precheck func(s *Server, x *exchange, req *request.Request) error
	// parsed, when set, returns the request of x's shape parsed before
	// (an insert's, whose shape the shape cache keeps by its head), which
	// the pipeline then neither parses nor refuses again; nil when there
	// is none. keepParsed keeps the parse of a request parsed and not
	// refused, for later requests of its shape.
	parsed     func(s *Server, x *exchange, target string) *request.Request
	keepParsed func(s *Server, x *exchange, target string)
	// plan resolves the parsed request against the snapshot for the
	// authenticated role (package plan), reading the body where there is
	// one.
	plan func(s *Server, x *exchange, req *request.Request) (P, error)
	// build turns the plan into its action and its statements (package
	// query), which the action runs.
	build func(s *Server, x *exchange, req *request.Request, p P) (action, shapes.Stmts, error)
}

// action is a request planned and built: what its transaction needs,
// how it runs the statements built with it and the answer. A shape the
// shape cache keeps is one too, run with the statements bound to each
// request.
type action interface {
	// begin readies the transaction x.tx (transaction.go).
	begin(s *Server, x *exchange) error
	// run is the transaction: the one round trip (transact) of stmts,
	// what build or the shape cache returned, or the root's document.
	run(s *Server, x *exchange, stmts shapes.Stmts) error
	// respond answers from what the transaction returned (x.res).
	respond(s *Server, x *exchange) error
}

// exchange is one request on its way through the pipeline: the request,
// its writer, the snapshot in force and its observation, and what the
// stages leave for the next in the request's own memory. Exchanges are
// pooled (pipeline.go), so that what a stage hands on through the
// routes' function values and the action's interface costs no
// allocation.
type exchange struct {
	w    http.ResponseWriter
	r    *http.Request
	snap *snapshot.Snapshot
	// obs is what the observer learns of the request (server/observe);
	// nil when it is served unobserved.
	obs *observe.Observation
	// template is the request's shape (keepShape), nil when it has none.
	template *request.Template
	// insertKey is an insert's shape (write.go): its head's key, which
	// planning completes with its body's; nil for another request.
	// keptInsert is the shape kept for the insert's head when the
	// request is the one kept there, which every insert of the head
	// shares; nil otherwise.
	insertKey  *shapes.InsertKey
	keptInsert *shapes.InsertRequest
	// tx is the request's transaction context: authenticate's, readied
	// by the action's begin.
	tx dbexec.Tx
	// schema is what the root's precheck selected.
	schema string
	// applied are the preferences the transaction's set-up applied.
	applied appliedPrefs
	// res and explain are what the statements returned: the main one's
	// result, and the planner's count when a read asks for one; resScan
	// is res.Scan, made once per pooled exchange, as sinkRow is.
	res     dbexec.Result
	resScan dbexec.RowFunc
	explain []byte
	// doc is the root's document, which its transaction finds, and body
	// the document when held whole.
	doc  openapi.Doc
	body []byte
	// sink joins the rows of a streamed answer (server/stream), and
	// sinkRow and sinkRewind are its methods as function values, made once
	// per pooled exchange rather than once per request.
	sink       stream.Sink[*exchange]
	sinkRow    dbexec.RowFunc
	sinkRewind func() bool
	// lines is an insert's JSON Lines body, read as it runs (write.go),
	// and linesSlot the slow client's session it holds once it needs one.
	lines     *request.Lines
	linesSlot chan struct{}
	// stepBuf holds the steps, so that listing them allocates nothing.
	stepBuf [2]dbexec.Step
	// headerRoom is what is left of the array the answer's header values
	// are carved from (setHeader).
	headerRoom []string
}

// appliedPrefs records which conditional preferences a request had
// applied, for Preference-Applied.
type appliedPrefs struct {
	timezone, tx bool
	// write is set for writes, whose own preferences are then echoed.
	write *plan.Write
}
