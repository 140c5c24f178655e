package docs

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/sql/pgtest"
)

// walkPrelude is run before the page's commands. It wraps the commands
// whose effect the page describes in words, so that the run checks the
// words: curl records each status; a NOTIFY, or a publish (which sends
// one), waits for the log line the page says follows it; and every psql
// login with a password is tried once more with a wrong password, which
// must be refused. It also waits, before the first request, until
// svc-serve listens for HTTP and for notifications, which a reader does
// by reading the log. On exit it stops what the page started, should the
// page fail before its clean-up.
const walkPrelude = `
set -euo pipefail
walk_ready() {
  [ -n "${SVC_PID:-}" ] || return 0
  for _ in $(seq 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$WALK_HTTP_PORT") 2>/dev/null &&
      [ "$(command psql -Atc "select count(*) from pg_stat_activity where query ilike 'listen %'" "$DATABASE_URL")" != 0 ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "walk: svc-serve is not serving" >&2; return 1
}
walk_count() { if [ -n "${SVC_PID:-}" ]; then grep -c -- "$1" svc-serve.log || true; else echo 0; fi; }
walk_await() { # phrase, count before
  for _ in $(seq 300); do
    [ "$(walk_count "$1")" -gt "$2" ] && return 0
    sleep 0.1
  done
  echo "walk: svc-serve did not log \"$1\"" >&2; return 1
}
curl() {
  walk_ready
  local code
  code=$(command curl -sS -o "$WALK_DIR/body" -w '%{http_code}' "$@")
  cat "$WALK_DIR/body"; echo
  echo "$code" >>"$WALK_DIR/statuses"
}
psql() {
  local uri=$1 phrase=""
  case "$*" in
    *"reload schema"*) phrase=$WALK_SCHEMA_PHRASE ;;
    *"reload config"*) phrase=$WALK_CONFIG_PHRASE ;;
  esac
  if [[ $uri =~ ^postgres://([^:@/]+):([^@]+)@(.*)$ ]] && ! grep -qxF -- "$uri" "$WALK_DIR/tried" 2>/dev/null; then
    echo "$uri" >>"$WALK_DIR/tried"
    if command psql -w "postgres://${BASH_REMATCH[1]}:wrong-password@${BASH_REMATCH[3]}" -c 'select 1' >/dev/null 2>"$WALK_DIR/refused"; then
      echo "walk: ${BASH_REMATCH[1]} logged in with a wrong password" >&2; return 1
    fi
    grep -q 'password authentication failed' "$WALK_DIR/refused" || { cat "$WALK_DIR/refused" >&2; return 1; }
  fi
  if [ -z "$phrase" ]; then command psql "$@"; return; fi
  walk_ready
  local before; before=$(walk_count "$phrase")
  command psql "$@"
  walk_await "$phrase" "$before"
}
svc-introspect() {
  local before; before=$(walk_count "$WALK_SCHEMA_PHRASE")
  command svc-introspect "$@"
  if [ "$1" = publish ] && [ -n "${SVC_PID:-}" ]; then walk_await "$WALK_SCHEMA_PHRASE" "$before"; fi
}
walk_exit() {
  [ -z "${SVC_PID:-}" ] || kill "$SVC_PID" 2>/dev/null || true
  if [ -n "${SCRATCH:-}" ] && [ -f "$SCRATCH/data/postmaster.pid" ]; then
    ${as:-} "$PGBIN/pg_ctl" -D "$SCRATCH/data" -m immediate stop >/dev/null || true
  fi
}
trap walk_exit EXIT
`

// What the page says svc-serve logs after a reload of each kind.
const (
	schemaPhrase = "schema snapshot loaded"
	configPhrase = "configuration reloaded"
)

// wantStatuses are the statuses the page's curl commands get, in order:
// two reads, a write refused without a token, two writes with one, a
// table the snapshot does not have yet, the same table and a new column
// after the reload, and a table published through the database.
var wantStatuses = []string{"200", "200", "401", "201", "204", "404", "200", "200", "200"}

// TestGettingStartedWalk follows getting-started.md as a newcomer does:
// every command block of the page, in order, in one bash shell, from the
// repository's root, with the scratch PostgreSQL server of step 1 (as the
// postgres OS user when the test runs as root, as the page says). Only
// the ports change, for free ones, and the server programs' directory
// when they live elsewhere than on Debian. It fails when a command fails
// or the page's promises (statuses, log lines, a wrong password refused)
// do not hold.
func TestGettingStartedWalk(t *testing.T) {
	for _, tool := range []string{"bash", "psql", "curl", "openssl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" is not installed")
		}
	}
	binDir, err := pgtest.FindBinDir()
	if err != nil {
		missing(t, err.Error())
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			missing(t, "the page runs PostgreSQL as the postgres OS user when run as root, and there is none")
		}
	}
	data, err := os.ReadFile("getting-started.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, phrase := range []string{schemaPhrase, configPhrase} {
		if !strings.Contains(page, "logs `"+phrase+"`") {
			t.Fatalf("the page no longer says svc-serve logs `%s`; update the walk", phrase)
		}
	}
	script := pageScript(t, page, binDir)

	// The scratch server's directory is made by mktemp under TMPDIR, and
	// the postgres OS user must be able to reach it.
	dir, err := os.MkdirTemp("", "svc-walk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{dir, home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", walkPrelude+script)
	cmd.Dir = ".."
	cmd.Env = walkEnv(t, home, tmp, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	statuses, _ := os.ReadFile(filepath.Join(dir, "statuses"))
	got := strings.Fields(string(statuses))
	if err != nil || !slices.Equal(got, wantStatuses) {
		t.Fatalf("walking getting-started.md: %v; statuses %v, want %v\n%s", err, got, wantStatuses, out.String())
	}
	if tried, _ := os.ReadFile(filepath.Join(dir, "tried")); !strings.Contains(string(tried), "authenticator:") {
		t.Errorf("the page never logs in as the authenticator with its password; tried %q", tried)
	}
}

// pageScript joins the page's command blocks (all but the log excerpts)
// into one script, with free ports for the page's and the directory of the
// PostgreSQL server programs found here.
func pageScript(t *testing.T, page, binDir string) string {
	var cmds []string
	for _, b := range codeBlocks(page) {
		if strings.HasPrefix(b[0], "time=") || strings.HasPrefix(b[0], "level=") {
			continue // what svc-serve prints
		}
		cmds = append(cmds, strings.Join(b, "\n"))
	}
	script := strings.Join(cmds, "\n") + "\n"
	pgPort, httpPort := freePort(t), freePort(t)
	for _, r := range []struct{ old, new string }{
		{"/usr/lib/postgresql/15/bin", binDir},
		{"localhost:5433", "localhost:" + pgPort},
		{"-p 5433 ", "-p " + pgPort + " "},
		{"localhost:3000", "localhost:" + httpPort},
		{"server-port = 3000", "server-port = " + httpPort},
	} {
		if !strings.Contains(script, r.old) {
			t.Fatalf("the page's commands no longer contain %q; update the walk", r.old)
		}
		script = strings.ReplaceAll(script, r.old, r.new)
	}
	return "WALK_HTTP_PORT=" + httpPort + "\n" + script
}

// walkEnv is the test's environment for a newcomer's shell: a home and a
// temporary directory of its own, Go's caches kept (so `go install` needs
// no network), and no PG* or SVC_* variable of the machine's.
func walkEnv(t *testing.T, home, tmp, dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PG") || strings.HasPrefix(name, "SVC_") ||
			slices.Contains([]string{"HOME", "TMPDIR", "GOPATH", "GOBIN"}, name) {
			continue
		}
		env = append(env, kv)
	}
	for _, name := range []string{"GOMODCACHE", "GOCACHE"} {
		v, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, name+"="+strings.TrimSpace(string(v)))
	}
	return append(env, "HOME="+home, "TMPDIR="+tmp, "WALK_DIR="+dir,
		"WALK_SCHEMA_PHRASE="+schemaPhrase, "WALK_CONFIG_PHRASE="+configPhrase)
}

// missing skips the test for want of a tool, or fails it under CI, where
// every tool is installed.
func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}
