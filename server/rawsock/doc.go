// Package rawsock reads and writes sockets with raw system calls, which neither hand the goroutine's processor away nor
// wake Go's monitor thread.
//
// A system call made the usual way marks its processor as in a system
// call. Two costs follow (deploy/bench's paced variant rounds on the split
// topology measure them, RESULTS.md):
//
//   - On loopback, write does the receiver's share of the work too: the
//     kernel delivers the bytes and wakes the reader (PostgreSQL, an HTTP
//     client), which often preempts the writer inside the call. Once the
//     call has outlasted one of sysmon's ticks (20 us), sysmon hands the
//     processor to another thread, and the writer must find one again when
//     it returns: two thread wake-ups and a park per preempted write.
//   - When every processor has been idle, sysmon sleeps until the next
//     system call wakes it, and then polls every 20 us for a millisecond
//     or more. A process that idles between requests, as SVC does on
//     PostgreSQL-bound workloads, pays that polling on every request.
//
// A raw call does neither. It must not block, and these do not: Go's
// network poller made the sockets non-blocking, so a read with nothing to
// read, or a write with the socket buffer full, fails with EAGAIN, and the
// poller waits as it always does, deadlines included. While a call runs,
// its processor runs nothing else, as when the goroutine computes for as
// long: a call copies at most a socket buffer's worth, and the other
// processors steal its queued work. A sleeping sysmon still wakes for the
// next timer (connections have deadlines), and then preempts a goroutine
// that has run for over 10 ms, as it would have.
//
// The raw calls are Linux's; elsewhere Wrap returns the connection as it
// is. svc-serve uses them on every client connection and on the pool's
// connections to PostgreSQL, except TLS sessions.
package rawsock
