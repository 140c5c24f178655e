package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dirPrefix marks directories this package creates; the owner's pid follows
// it so abandoned ones can be recognised and removed.
const dirPrefix = "svc-pgtest-"

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// URI connects as the bootstrap superuser to the "postgres" database.
	URI  string
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	// launch starts the server process on the initialised data directory.
	launch func(ctx context.Context) error
}

// Options tune a cluster. The zero value is fine for tests.
type Options struct {
	// Settings are extra postgresql.conf lines ("key = value").
	Settings []string
	// Log receives the server's output; nil discards it.
	Log *os.File
}

// Start initialises and starts a new cluster and waits until it accepts
// connections.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	removeAbandoned()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, done: make(chan struct{})}
	if err := c.start(ctx, binDir, opts); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, binDir string, opts Options) error {
	cred, err := serverCredential()
	if err != nil {
		return err
	}
	data := filepath.Join(c.dir, "data")
	if cred != nil {
		if err := os.Chown(c.dir, cred.uid, cred.gid); err != nil {
			return err
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = childAttr(cred, false)
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return c.configureAndLaunch(ctx, binDir, data, cred, opts)
}

// configureAndLaunch appends the cluster's settings to the postgresql.conf
// of the data directory data (later lines win, so settings a base backup
// copied from its primary are overridden) and starts the server.
func (c *Cluster) configureAndLaunch(ctx context.Context, binDir, data string, cred *account, opts Options) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	c.Port = port
	conf := append([]string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", port),
		fmt.Sprintf("unix_socket_directories = '%s'", c.dir),
		"fsync = off", "synchronous_commit = off", "full_page_writes = off",
		"max_connections = 200", "shared_buffers = 128MB",
	}, opts.Settings...)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("\n" + strings.Join(conf, "\n") + "\n")
	f.Close()
	if err != nil {
		return err
	}
	c.URI = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	c.launch = func(ctx context.Context) error {
		cmd := exec.Command(filepath.Join(binDir, "postgres"), "-D", data)
		cmd.SysProcAttr = childAttr(cred, true)
		if opts.Log != nil {
			cmd.Stdout, cmd.Stderr = opts.Log, opts.Log
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start postgres: %w", err)
		}
		c.cmd = cmd
		done := make(chan struct{})
		c.done = done
		go func() { cmd.Wait(); close(done) }()
		return c.waitReady(ctx)
	}
	return c.launch(ctx)
}

// Halt stops the server (fast shutdown, so sessions are cut) but keeps its
// data, for tests of a database that goes away; Resume brings it back.
func (c *Cluster) Halt() {
	c.stopServer()
}

// Resume starts a halted server again on the same port and waits until it
// accepts connections.
func (c *Cluster) Resume(ctx context.Context) error {
	return c.launch(ctx)
}

func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.URI)
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("postgres exited during start-up: %v", c.cmd.ProcessState)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30s: %w", err)
		}
	}
}

// Stop shuts the server down (fast mode) and removes its directory. It is
// safe to call more than once.
func (c *Cluster) Stop() {
	c.stopServer()
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// stopServer stops the server process, if it runs.
func (c *Cluster) stopServer() {
	if c.cmd != nil && c.cmd.Process != nil {
		StopProcess(c.cmd.Process, c.done, 10*time.Second)
	}
}

// CreateDatabase creates a fresh database and returns a URI for it, so that
// tests sharing a cluster do not share state.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	return createDatabase(ctx, c.URI, name)
}

// account is an OS user to run a program as.
type account struct{ uid, gid int }

// serverCredential returns the `postgres` OS user when running as root,
// nil otherwise (and always on Windows, which has no root).
func serverCredential() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root, but there is no `postgres` OS user to run the server as (install the PostgreSQL server package, or run as a normal user)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &account{uid: uid, gid: gid}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// removeAbandoned deletes cluster directories whose creating process is
// gone; on Linux the postmaster in them was already stopped by its
// parent-death signal (childAttr).
func removeAbandoned() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		rest := strings.TrimPrefix(filepath.Base(dir), dirPrefix)
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if processGone(pid) {
			os.RemoveAll(dir)
		}
	}
}
