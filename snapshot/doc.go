// Package snapshot holds SVC's schema model: every relation, relationship,
// function, cast and role grant the server needs, and the enums and
// composite types typed clients name, as written by svc-introspect and
// read by svc-serve.
//
// A snapshot file is an 8-byte magic, a msgpack Header, then the msgpack
// Content. The header carries the format version (a reader refuses versions
// it does not know) and a sha256 fingerprint of the encoded content, which
// doubles as a check against damaged files. After decoding, an index is built
// once; the request path only reads it. Diff lists the API changes between
// two snapshots, marking the breaking ones. The package does no I/O with
// the database and imports nothing else of SVC.
package snapshot
