// Package txroute runs a request's transaction where it belongs: on the
// primary, or, for a request that only reads, on a replica that has
// replayed what the client last wrote (SVC-Commit-LSN), run again whole
// on the primary when the replica cannot serve it. It also opens the
// replicas of the configuration. No HTTP beyond that header.
package txroute
