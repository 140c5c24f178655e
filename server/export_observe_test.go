package server

import "net/http"

// ServeUnobserved serves r without the recorder, metrics and access log,
// the baseline BenchmarkObserve compares against.
func (s *Server) ServeUnobserved(w http.ResponseWriter, r *http.Request) { s.dispatch(w, r) }
