#!/usr/bin/env bash
# CI step after database migrations: write the API's snapshot, show what
# changed for clients, refuse breaking changes, publish it to the fleet
# (every svc-serve with snapshot = "db" swaps it in on the NOTIFY publish
# sends), and write the TypeScript types of what was published.
#
# Environment:
#   SVC_DB_URI      a role that may read the catalog and write svc_snapshots
#                   (docs/snapshots.md, "Publish")
#   SVC_DB_SCHEMAS  the exposed schemas (as svc-serve's db-schemas)
#   GRANT_TO        the role svc-serve logs in as, granted what it reads the
#                   snapshots with (publish --grant-to); without it, the
#                   first publish prints the GRANT statements to run
#   PREVIOUS        the snapshot this step published last time (a CI
#                   artifact), to print the changes; optional
#   ALLOW_BREAKING  1 to publish a breaking change on purpose (see
#                   ../blue-green.md)
#   SVC_INTROSPECT  the svc-introspect binary (default: from PATH)
#   SNAPSHOT_OUT    where to write the new snapshot (default snapshot.msgpack)
#   TYPES_OUT       where to write, once published, the TypeScript types
#                   typed clients compile against (docs/typescript.md);
#                   optional
#   TYPES_ROLE      the role those types describe (default: everything)
set -euo pipefail
introspect=${SVC_INTROSPECT:-svc-introspect}
out=${SNAPSHOT_OUT:-snapshot.msgpack}
guard=(--fail-on-breaking)
[ "${ALLOW_BREAKING:-0}" = 1 ] && guard=()
grant=()
[ -n "${GRANT_TO:-}" ] && grant=(--grant-to "$GRANT_TO")

"$introspect" dump -o "$out"
if [ -n "${PREVIOUS:-}" ] && [ -f "$PREVIOUS" ]; then
  echo "== API changes since the last publish"
  "$introspect" diff "${guard[@]}" "$PREVIOUS" "$out"
fi
# publish compares with the snapshot the fleet serves as well: a breaking
# change is refused even when no previous artifact was kept.
"$introspect" publish "${guard[@]}" "${grant[@]}" --file "$out"
# The types of what was published, for the frontends' builds.
if [ -n "${TYPES_OUT:-}" ]; then
  role=()
  [ -n "${TYPES_ROLE:-}" ] && role=(--role "$TYPES_ROLE")
  "$introspect" types typescript --snapshot "$out" "${role[@]}" -o "$TYPES_OUT"
fi
