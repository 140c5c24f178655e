// Package pgtest starts throwaway PostgreSQL clusters from the machine's
// installed server binaries, for tests, benchmarks and `svc-serve demo`.
//
// A cluster lives in a temporary directory, listens on a free loopback port
// and is gone after Stop. When the starting process dies without calling
// Stop (a panicking test, a killed demo), the kernel sends the postmaster
// SIGQUIT (parent-death signal) and the next Start removes the abandoned
// directory. As root it runs initdb and postgres as the `postgres` OS user,
// since PostgreSQL refuses to run as root. It never touches a cluster it did
// not create.
package pgtest
