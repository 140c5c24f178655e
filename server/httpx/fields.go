package httpx

// FieldSetter is a ResponseWriter that takes header fields apart from its
// Header map (http1's): fields set there are not hashed into the map, nor
// gathered, checked and sorted from it when the header is written. The
// map wins over a field of the same name. SetField sets name to value,
// or with keep leaves a value it set before; it reports false when it
// takes nothing (a name the server decides itself, or one no client
// could read), and the caller then sets the map. A ResponseWriter that
// wraps another forwards it only when it does not need to see the
// fields itself.
type FieldSetter interface {
	SetField(name, value string, keep bool) bool
}
