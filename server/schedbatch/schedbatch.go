// Package schedbatch puts the server's threads under Linux's SCHED_BATCH
// scheduling policy.
//
// A request wakes the server twice (the client's bytes, then
// PostgreSQL's answer), and under the default policy each wake-up may
// preempt whatever runs on that core, typically a PostgreSQL backend in the
// middle of a query when the two share a machine. Under SCHED_BATCH a
// woken thread waits for the running one's slice instead; on an idle core
// it runs at once, as before.
//
// svc-serve applies it only when asked (server-sched-batch, off by
// default): it pays where SVC, PostgreSQL and the load share cores (the
// load benchmark's shared topology, deploy/bench/run.sh), and has nothing
// to give way to where SVC has cores of its own.
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
