// Package observe is what is observed of a request: its access log line,
// log-query, Server-Timing, the trace header, the request metrics and
// the default Vary, all read from one recorder around the ResponseWriter
// and an Observation the pipeline fills, which that recorder carries. It
// must not change an answer beyond those headers.
package observe
