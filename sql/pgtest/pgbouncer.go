package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PgBouncer is a throwaway PgBouncer in transaction pooling mode in front
// of a database, for tests of SVC behind a pooler.
type PgBouncer struct {
	// Port is where it listens, on 127.0.0.1.
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// FindPgBouncer returns the pgbouncer binary, or an error saying how to
// install it.
func FindPgBouncer() (string, error) {
	for _, p := range []string{"pgbouncer", "/usr/sbin/pgbouncer"} {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", errors.New("pgbouncer not found (apt-get install pgbouncer)")
}

// StartPgBouncer starts PgBouncer for the server target points at (a URI;
// every database on it is reachable, clients are trusted) and waits until
// it accepts connections. users lists the roles clients connect as.
func StartPgBouncer(ctx context.Context, target string, users []string) (*PgBouncer, error) {
	bin, err := FindPgBouncer()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	b := &PgBouncer{dir: dir, done: make(chan struct{})}
	if err := b.start(ctx, bin, u, users); err != nil {
		b.Stop()
		return nil, err
	}
	return b, nil
}

func (b *PgBouncer) start(ctx context.Context, bin string, target *url.URL, users []string) error {
	cred, err := serverCredential()
	if err != nil {
		return err
	}
	if b.Port, err = freePort(); err != nil {
		return err
	}
	var auth strings.Builder
	for _, u := range users {
		fmt.Fprintf(&auth, "%q \"\"\n", u)
	}
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
ignore_startup_parameters = extra_float_digits,application_name
server_reset_query =
# Retry a restarted server after a second, not the default 15.
server_login_retry = 1
query_wait_timeout = 10
`, target.Hostname(), target.Port(), b.Port, filepath.Join(b.dir, "users.txt"))
	for name, text := range map[string]string{"users.txt": auth.String(), "pgbouncer.ini": ini} {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if cred != nil {
		if err := os.Chown(b.dir, cred.uid, cred.gid); err != nil {
			return err
		}
	}
	b.cmd = exec.Command(bin, filepath.Join(b.dir, "pgbouncer.ini"))
	b.cmd.SysProcAttr = childAttr(cred, true)
	if err := b.cmd.Start(); err != nil {
		return fmt.Errorf("start pgbouncer: %w", err)
	}
	go func() { b.cmd.Wait(); close(b.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", b.Port))
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-b.done:
			return errors.New("pgbouncer exited during start-up")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgbouncer did not listen within 10s: %w", err)
		}
	}
}

// URI returns target's URI (user, database, parameters) routed through
// this PgBouncer.
func (b *PgBouncer) URI(target string) string {
	u, _ := url.Parse(target)
	u.Host = fmt.Sprintf("127.0.0.1:%d", b.Port)
	return u.String()
}

// Stop ends PgBouncer and removes its directory.
func (b *PgBouncer) Stop() {
	if b.cmd != nil && b.cmd.Process != nil {
		StopProcess(b.cmd.Process, b.done, 5*time.Second)
	}
	os.RemoveAll(b.dir)
}
