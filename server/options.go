package server

import (
	"net/http"

	"github.com/svc-dev/svc/server/httpx"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

// handleOptions answers OPTIONS on a relation or function route with the
// methods it allows, from the snapshot alone. CORS preflights never get
// here: the CORS middleware answers them.
func (s *Server) handleOptions(w http.ResponseWriter, r *http.Request, kind request.Kind, target string) {
	obs := observe.Of(r.Context())
	t0 := obs.StageStart()
	req, err := request.Parse(r, kind, target)
	obs.ParseDone(t0)
	if err == nil {
		err = req.CheckLimits(s.limits)
	}
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	allow := "OPTIONS,GET,HEAD"
	snap := s.snapshots.Current()
	switch kind {
	case request.KindRelation:
		allow, err = plan.AllowRelation(req, snap, s.planOptions())
	case request.KindFunction:
		allow, err = plan.AllowFunction(req, snap, s.planOptions())
	}
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	obs.AnsweredNow()
	w.Header().Set("Allow", allow)
	httpx.AllowInfoOrigin(w.Header(), s.cfg.ServerCORSAllowedOrigins)
	w.WriteHeader(http.StatusOK)
}
