package server

import (
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
)

// explainAction answers the plan media type: the EXPLAIN output of the
// statement the request would run for the media type it names in `for`
// (query.Explained), in the transaction that request would run in.
type explainAction struct {
	tx    txShape
	stmt  query.Statement
	media request.Media
	lines []string
}

// explainOf is the action of a request of kind P for the plan media type
// media, in a transaction of shape tx.
func explainOf[P *plan.Read | *plan.Write | *plan.Call](tx txShape, p P, media request.Media) action {
	return &explainAction{tx: tx, stmt: query.Explained(p, media), media: media}
}

func (a *explainAction) begin(s *Server, x *exchange) error {
	x.tx.Explain = true
	x.tx.Settings = explainSettings(x.tx.Settings)
	return s.readyTx(x, &a.tx)
}

// explainSettings follows a role's own jit setting with the two settings
// a plan request keeps JIT off by (dbexec.Tx.Explain), set alike: a role
// set to jit = on then compiles in its plans as in its requests, and the
// plan still lists no setting PostgREST's would not.
func explainSettings(settings [][2]string) [][2]string {
	i := slices.IndexFunc(settings, func(kv [2]string) bool { return kv[0] == "jit" })
	if i < 0 {
		return settings
	}
	out := make([][2]string, 0, len(settings)+2)
	out = append(out, settings[:i+1]...)
	out = append(out, [2]string{"jit_expressions", settings[i][1]}, [2]string{"jit_tuple_deforming", settings[i][1]})
	return append(out, settings[i+1:]...)
}

func (a *explainAction) run(s *Server, x *exchange, _ shapes.Stmts) error {
	x.stepBuf[0] = dbexec.Step{Stmt: a.stmt, Row: func(values [][]byte) error {
		a.lines = append(a.lines, string(values[0]))
		return nil
	}}
	return s.transact(x, x.stepBuf[:1])
}

func (a *explainAction) respond(_ *Server, x *exchange) error {
	x.w.Header().Set("Content-Type", a.media.ContentType())
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		io.WriteString(x.w, strings.Join(a.lines, "\n"))
	}
	return nil
}
