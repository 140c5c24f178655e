package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// An insert whose body is JSON Lines reads it a batch at a time
// (request.Lines): the first batch before the transaction, as any body,
// and the rest while the transaction runs, each batch one more run of the
// insert's statement (dbexec.Tx.Next). All of them commit, or none: a
// batch that fails to read or to parse rolls the whole back.
//
// A body that ends within its first batch is an ordinary insert. One
// that does not holds its session while its client sends: it must hold
// one of the sessions slow clients may hold (Server.streams, half of
// db-pool), waiting for one as long as for a session, so that clients
// sending slowly cannot take the pool. Each batch must arrive within
// server-read-timeout; the body may be server-max-lines-body-bytes in
// all, each line server-max-body-bytes.

// linesBody is a JSON Lines body being read, and the slow client's
// session it holds once it needs one.
type linesBody struct {
	lines *request.Lines
	slot  chan struct{}
}

// nextLines sets x's transaction up to run write p's statement on every
// batch of its body after the first: row reads each batch's rows, as it
// did the first's. The slot among slow clients' sessions is taken here,
// before a session is.
func (s *Server) nextLines(x *exchange, p *plan.Write, row dbexec.RowFunc) error {
	lb := x.lines
	if lb == nil || !lb.lines.More() {
		return nil
	}
	t := time.NewTimer(s.cfg.DBPoolAcquisitionTimeout)
	defer t.Stop()
	select {
	case s.streams <- struct{}{}:
		lb.slot = s.streams
	case <-t.C:
		return apierr.PoolTimeout()
	case <-x.r.Context().Done():
		return dbexec.ErrClientGone
	}
	rc := http.NewResponseController(x.w)
	// Without it, an HTTP/1 answer whose header leaves (a representation
	// streaming) before the body is read has the server discard what is
	// left of the body up to 256 KiB, and the reads after that see its end.
	if err := rc.EnableFullDuplex(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	res := &x.res
	// before counts the rows of the batches run before the last one: a
	// batch's statement counts its own (and an upsert's inserted rows its
	// own, less every update so far), which fold into the whole's once it
	// has run, the first batch's in the pipeline.
	var before int64
	streamed := query.WriteStreamed(p)
	x.tx.Next = func() (dbexec.Step, bool, error) {
		if !streamed {
			res.PageCount += before // a streamed one counts on
		}
		if res.Total != nil {
			*res.Total += before
		}
		before = res.PageCount
		// Each batch gets server-read-timeout to arrive, the whole body
		// not: it may take longer than one request's body.
		rc.SetReadDeadline(time.Now().Add(s.cfg.ServerReadTimeout))
		batch, err := lb.lines.Batch()
		if err != nil || batch == nil {
			return dbexec.Step{}, false, err
		}
		p.Payload = batch
		if streamed {
			x.sink.first = false // the batch's total rides on its first row
		}
		return dbexec.Step{Stmt: query.Write(p), Row: row}, true, nil
	}
	return nil
}

// release gives back the slow client's session lb held.
func (lb *linesBody) release() {
	if lb != nil && lb.slot != nil {
		<-lb.slot
		lb.slot = nil
	}
}
