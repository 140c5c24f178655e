package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/svc-dev/svc/server/apierr"
)

// readBody reads a request body up to server-max-body-bytes; a larger one
// is refused (SVC102) before anything reaches the database.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := int64(s.cfg.ServerMaxBodyBytes)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierr.InvalidBody("Request body too large",
			fmt.Sprintf("The body exceeds %d bytes (server-max-body-bytes)", limit))
	case err != nil:
		return nil, apierr.InvalidBody("Request body unreadable", err.Error())
	}
	return body, nil
}
