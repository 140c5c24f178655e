package server

import (
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/shapes"
)

// ReadShapes is the number of read shapes s keeps, reads of relations
// and calls.
func ReadShapes(s *Server) int { return s.shapes.Len(shapes.Reads) + s.shapes.Len(shapes.Calls) }

// RootDocs is s's cache of root documents.
func RootDocs(s *Server) *openapi.Cache { return s.rootDocs }

// WriteShapes is the number of insert shapes s keeps.
func WriteShapes(s *Server) int { return s.shapes.Len(shapes.Inserts) }
