// Package drill is the migration drill: svc-serve nodes under continuous
// reads, writes and function calls while a scripted sequence of
// migrations runs against their database, each committed and then
// published or notified, and every answer judged against the schema in
// force when it was given.
//
// The pieces, a file or two each: the schema model every migration moves
// forward (version.go, migrations.go); the PostgreSQL and svc-serve
// processes (topology.go, nodes.go) and a step run on them (step.go);
// the clients (workload.go, requests.go); the oracle deciding whether an
// answer is one the schema allows (oracle.go, rows.go); and the per-step
// report (report.go).
// TestMigrationDrill runs it: a short form by default, the full form with
// -drill.full (docs/operations.md says how and what it checks).
//
// The oracle models PostgreSQL and SVC for the drill's own objects only;
// it is not a general model of either. It knows what each version of the
// schema holds and, for a request, which objects it names, so it can say
// what a server planning with one version's snapshot answers while the
// database holds another version's catalog.
package drill
