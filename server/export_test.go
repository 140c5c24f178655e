package server

// ReadShapes is the number of read shapes s keeps, reads of relations
// and calls.
func ReadShapes(s *Server) int { return s.readShapes.len() + s.callShapes.len() }
