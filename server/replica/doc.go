// Package replica keeps the streaming standbys SVC serves reads from
// (db-replica-uris): a connection pool for each, a background check of
// each (reachable, still in recovery, how far its replay lags behind the
// primary), and the choice of the replica a read runs on.
//
// It knows nothing of HTTP or of requests: the server decides which
// requests only read and asks a Set for a replica (Pick), which answers
// with a healthy one that has replayed what the request needs, or with
// nil, meaning the primary. Positions in the write-ahead log (LSN) are
// what "has replayed" is measured in: the position a client's earlier
// write committed at (read-your-writes), and the position the snapshot in
// force was published at (Require), so that a route the snapshot adds
// never reaches a standby that lacks its table. A position a client sends
// back is first judged against how far the primary has come (Reached):
// one ahead of it was never handed out, and is ignored.
//
// A standby found out of recovery (promoted) is never used again by the
// Set: it may now take writes the primary does not see, and only the
// operator knows which server is the primary. Restart svc-serve with the
// new topology.
package replica
