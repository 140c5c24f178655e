package server

import (
	"io"
	"net/http"
	"strings"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// explainAction answers the plan media type: the EXPLAIN output of stmt,
// the statement the request would run for the media type it names in
// `for`, in the transaction that request would run in.
type explainAction struct {
	tx    txShape
	stmt  query.Statement
	media request.Media
	lines []string
}

func (a *explainAction) begin(s *Server, x *exchange) error {
	x.tx.Explain = true
	return s.readyTx(x, &a.tx)
}

func (a *explainAction) run(s *Server, x *exchange) error {
	stmt := query.Explain(a.stmt, a.media.PlanJSON, a.media.PlanOptions)
	x.stepBuf[0] = dbexec.Step{Stmt: stmt, Row: func(values [][]byte) error {
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
