// Package schedbatch puts the server's threads under Linux's SCHED_BATCH
// scheduling policy.
//
// A request wakes the server twice (the client's bytes, then
// PostgreSQL's answer), and under the default policy each wake-up may
// preempt whatever runs on that core, typically a PostgreSQL backend in the
// middle of a query when the two share a machine. Under SCHED_BATCH a
// woken thread waits for the running one's slice instead; on an idle core
// it runs at once, as before. On the 2-core benchmark machine, shared by
// the load generator, SVC and PostgreSQL, this took away the spells in
// which SVC's threads kept parking and waking: on the reads that wait
// longest on PostgreSQL its CPU per request fell by a fifth to a third and
// its throughput against pgbench rose (deploy/bench/RESULTS.md).
package schedbatch

// Outcome says what Apply did.
type Outcome int

const (
	// Applied means every thread now runs under SCHED_BATCH.
	Applied Outcome = iota
	// Chosen means the process already ran under a policy other than the
	// default (started under chrt, say), which Apply leaves as it is.
	Chosen
	// Unsupported means the platform has no SCHED_BATCH.
	Unsupported
)
