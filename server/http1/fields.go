package http1

// A handler's header is an http.Header, a map: each field set hashes its
// name, and the answer's fields are gathered from the map, checked and
// sorted before they are written. That was a fifth of SVC's own work on
// a lookup, for fields whose names the handler knows valid and whose
// order no client reads. SetField takes such a field apart from the map,
// to be written after the map's fields in the order set; the map's
// fields are written as net/http writes them.

// maxFields is how many fields SetField keeps; past them the caller
// uses the map.
const maxFields = 8

// field is a header field set with SetField.
type field struct{ name, value string }

// SetField sets the field name of the answer's header to value, apart
// from Header's map; keep leaves a value set before as it is, else it is
// replaced. The map wins: a field the map holds when the header is sent
// is written from the map alone. The value is written as a map's would
// be, line breaks made spaces. It reports whether the field is held
// apart from the map; it takes nothing for a name the server decides
// itself (the framing fields and Date), for a name no client could read,
// and past maxFields, and the caller then sets the map.
func (w *response) SetField(name, value string, keep bool) bool {
	switch name {
	case "Content-Length", "Transfer-Encoding", "Connection", "Date", "Trailer":
		return false
	}
	if i := w.fieldIndex(name); i >= 0 {
		if !keep {
			w.fields[i].value = value
		}
		return true
	}
	if len(w.fields) == maxFields || !w.c.names.name(name) {
		return false
	}
	w.fields = append(w.fields, field{name, value})
	return true
}

// fieldIndex returns the index in w.fields of the field named name, -1
// when SetField has not set it.
func (w *response) fieldIndex(name string) int {
	for i := range w.fields {
		if w.fields[i].name == name {
			return i
		}
	}
	return -1
}

// dropField removes the field SetField set for name, if any.
func (w *response) dropField(name string) {
	if i := w.fieldIndex(name); i >= 0 {
		w.fields = append(w.fields[:i], w.fields[i+1:]...)
	}
}
