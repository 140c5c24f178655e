// Package stream writes answers that may outgrow what the server holds:
// the rows of a streamed read or representation (Sink), joined as
// PostgreSQL's aggregate would and answered whole within
// server-response-buffer-bytes, or streamed past it, chunk by chunk, while
// the rows still arrive; the root's document (Doc); the writer that sends
// the chunks, noticing a client that lags; and the budget bodies held at
// once share (server-response-buffers-max-bytes). It knows the request
// only as the type its Header is given.
package stream
