#!/usr/bin/env bash
# Rewrites cmd/svc-serve/default.pgo, the CPU profile `go build` optimises
# svc-serve with (profile-guided optimisation: the hot calls it inlines and
# the interface calls it devirtualises). The profile is of the whole
# server's benchmarks (server/serve_bench_test.go): a lookup, a page, CSV,
# an embed, an RPC and an insert, each through http1, the pipeline and
# PostgreSQL as svc-serve serves them, so it names the request path every
# deployment runs, not one machine's. Run it after a change to that path;
# a profile of older code still builds, and only what it no longer names
# goes unoptimised.
#
#	deploy/bench/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test ./server -run '^$' -bench 'BenchmarkServe(Read|Write)$' -benchtime "${PGO_BENCHTIME:-3s}" \
	-o "$work/server.test" -cpuprofile "$work/cpu.pprof" >&2
mv "$work/cpu.pprof" cmd/svc-serve/default.pgo
echo "wrote cmd/svc-serve/default.pgo" >&2
