package server

import (
	"encoding/json"
	"net/http"
)

// handleRoot describes the API. Until the OpenAPI document is built, it
// lists the exposed relations as Swagger 2.0 paths with no operations.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshots.Current()
	paths := map[string]struct{}{}
	for _, rel := range snap.Content.Relations {
		if len(s.cfg.DBSchemas) > 0 && rel.Schema == s.cfg.DBSchemas[0] {
			paths["/"+rel.Name] = struct{}{}
		}
	}
	doc := map[string]any{
		"swagger": "2.0",
		"info":    map[string]any{"title": "SVC API", "version": snap.Header.Fingerprint},
		"paths":   paths,
	}
	body, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/openapi+json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
