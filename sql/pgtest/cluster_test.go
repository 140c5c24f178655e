package pgtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestStartQueryStop(t *testing.T) {
	ctx := context.Background()
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	var one int
	err = conn.QueryRow(ctx, "select 1").Scan(&one)
	conn.Close(ctx)
	if err != nil || one != 1 {
		t.Errorf("select 1 = %d, %v", one, err)
	}
	uri, err := c.CreateDatabase(ctx, "other_db")
	if err != nil {
		t.Fatal(err)
	}
	conn2, err := pgx.Connect(ctx, uri)
	if err != nil {
		t.Fatalf("connect to created database: %v", err)
	}
	var db string
	conn2.QueryRow(ctx, "select current_database()").Scan(&db)
	conn2.Close(ctx)
	if db != "other_db" {
		t.Errorf("current_database() = %q, want other_db", db)
	}
	c.Stop()
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s still exists after Stop", c.dir)
	}
	if _, err := pgx.Connect(ctx, c.URI); err == nil {
		t.Error("server still accepts connections after Stop")
	}
	c.Stop() // twice is fine
}

// TestAbandonedDirectoryRemoved proves the clean-up path for a process that
// died without Stop: a directory stamped with a dead pid is swept by Start.
func TestAbandonedDirectoryRemoved(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("cannot run `true` to obtain a dead pid:", err)
	}
	pid := dead.Process.Pid
	time.Sleep(10 * time.Millisecond)
	dir, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(pid)+"-")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "marker"), []byte("x"), 0o600)
	removeAbandoned()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		os.RemoveAll(dir)
		t.Errorf("abandoned directory %s was not removed", dir)
	}
	live, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)
	removeAbandoned()
	if _, err := os.Stat(live); err != nil {
		t.Errorf("directory of a live process was removed: %v", err)
	}
}

func TestHaltResume(t *testing.T) {
	ctx := context.Background()
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "create table kept (id int); insert into kept values (7)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	c.Halt()
	if conn, err := pgx.Connect(ctx, c.URI); err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a halted cluster")
	}
	if err := c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, c.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int
	if err := conn.QueryRow(ctx, "select id from kept").Scan(&id); err != nil || id != 7 {
		t.Errorf("after resume: %d, %v; want the row written before", id, err)
	}
}
