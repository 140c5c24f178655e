# pREST (github.com/prest/prest), a Go server in SVC's class, as a peer in
# run.sh's paired rounds: the same cluster, data and pool size, and for
# each workload pREST can express (PREST_KINDS) its form of the request
# (prest/KIND.lua). pREST has no nested embedding (embed), no CSV (csv), no
# rows with an exact total in one answer (count), and calls functions only
# through SQL templates on disk (rpc), so those run without it. Sourced by
# run.sh after its functions are defined.

PREST_VERSION=v1.5.5
PREST_KINDS="lookup page insert"
PREST_CACHE=${PREST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-bench}
PREST_HTTP=http://127.0.0.1:$PRESTPORT

# prest_kind KIND: whether pREST runs KIND.
prest_kind() { [ "$PREST" = 1 ] && [[ " $PREST_KINDS " == *" $1 "* ]]; }

# build_prestd: prestd, pREST's server, at PREST_VERSION into PREST_CACHE,
# once per version. `go install MODULE@VERSION` asks the module proxy for
# the module's version list first, which the proxy refuses for pREST, so a
# throwaway module requires the one version and builds its main package.
build_prestd() {
  PRESTD=$PREST_CACHE/prestd-$PREST_VERSION
  [ -x "$PRESTD" ] && return
  log "building prestd $PREST_VERSION into $PREST_CACHE ..."
  local src=$PREST_CACHE/prestd-$PREST_VERSION-src
  rm -rf "$src"
  mkdir -p "$src"
  (cd "$src" && go mod init svc-bench/prestd >/dev/null 2>&1 &&
    go get "github.com/prest/prest/cmd/prestd@$PREST_VERSION" 2>>"$WORK/prest-build.log" &&
    go build -o "$PRESTD.tmp" github.com/prest/prest/cmd/prestd 2>>"$WORK/prest-build.log") ||
    { cat "$WORK/prest-build.log" >&2; die "could not build prestd $PREST_VERSION (PREST=0 runs without it)"; }
  mv "$PRESTD.tmp" "$PRESTD"
}

# start_prest starts prestd on the suite's database, on svc-serve's cores,
# and waits (10 s at most) until it answers. pREST runs every request as the
# role it logs in as, so that role, prest, is a member of bench_anon: the
# same grants SVC's requests run with. Its pool is SVC's size, kept open
# (pg.maxidleconn; pREST's default of 0 would connect anew for every
# request), and its token check is off (jwt.default), as SVC serves the
# anonymous role.
start_prest() {
  ensure_prest_role
  cat >"$WORK/prest.toml" <<TOML
debug = false
[http]
host = "127.0.0.1"
port = $PRESTPORT
[pg]
host = "127.0.0.1"
port = $PGPORT
user = "prest"
database = "postgres"
maxidleconn = $POOL
maxopenconn = $POOL
single = true
[pg.ssl]
mode = "disable"
[ssl]
mode = "disable"
[jwt]
default = false
[access]
restrict = false
TOML
  env PREST_CONF="$WORK/prest.toml" "${ON_SVC[@]}" "$PRESTD" >>"$WORK/prest.log" 2>&1 &
  PREST_PID=$!
  await_server prestd "$PREST_PID" "$WORK/prest.log" "$PREST_HTTP/postgres/bench/books?id=\$eq.1"
}
stop_prest() { kill "$PREST_PID" && wait "$PREST_PID" || true; PREST_PID=; }
