package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// standbySettings keep a test standby's queries from being cancelled by
// the primary's vacuum (a conflict with recovery), which a test that
// writes and reads at once would otherwise meet by chance.
var standbySettings = []string{"hot_standby = on", "hot_standby_feedback = on"}

// StartStandby starts a hot standby of primary: a base backup of it
// (pg_basebackup -R, which writes standby.signal and primary_conninfo)
// started on a port of its own, streaming the primary's WAL from then on.
// It returns once the standby accepts connections. Stop removes it; the
// primary is left as it was.
func StartStandby(ctx context.Context, primary *Cluster, opts Options) (*Cluster, error) {
	binDir, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, done: make(chan struct{})}
	if err := c.startStandby(ctx, binDir, primary, opts); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) startStandby(ctx context.Context, binDir string, primary *Cluster, opts Options) error {
	cred, err := serverCredential()
	if err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chown(c.dir, cred.uid, cred.gid); err != nil {
			return err
		}
	}
	data := filepath.Join(c.dir, "data")
	// -X stream copies the WAL written during the backup too, so the
	// standby is consistent as soon as it has replayed it.
	backup := exec.CommandContext(ctx, filepath.Join(binDir, "pg_basebackup"),
		"-D", data, "-d", fmt.Sprintf("host=127.0.0.1 port=%d user=postgres", primary.Port),
		"-X", "stream", "-R", "-c", "fast", "--no-sync")
	backup.SysProcAttr = childAttr(cred, false)
	if out, err := backup.CombinedOutput(); err != nil {
		return fmt.Errorf("pg_basebackup: %w\n%s", err, out)
	}
	opts.Settings = append(append([]string{}, standbySettings...), opts.Settings...)
	return c.configureAndLaunch(ctx, binDir, data, cred, opts)
}

// ReplicaSet is a primary and its streaming standbys on loopback, for
// tests of read replicas.
type ReplicaSet struct {
	Primary  *Cluster
	Standbys []*Cluster
}

// StartReplicaSet starts a primary (with opts) and n standbys of it.
func StartReplicaSet(ctx context.Context, n int, opts Options) (*ReplicaSet, error) {
	primary, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	set := &ReplicaSet{Primary: primary}
	for range n {
		standby, err := StartStandby(ctx, primary, Options{Log: opts.Log})
		if err != nil {
			set.Stop()
			return nil, err
		}
		set.Standbys = append(set.Standbys, standby)
	}
	return set, nil
}

// Stop stops the standbys, then the primary, and removes them all.
func (s *ReplicaSet) Stop() {
	for _, c := range s.Standbys {
		c.Stop()
	}
	s.Primary.Stop()
}

// WaitReplayed waits until each standby has replayed the WAL the primary
// had written when it was called, so what committed before is visible on
// them. A standby whose replay is paused makes it wait until ctx ends.
func WaitReplayed(ctx context.Context, primary *Cluster, standbys ...*Cluster) error {
	conn, err := pgx.Connect(ctx, primary.URI)
	if err != nil {
		return err
	}
	var target string
	err = conn.QueryRow(ctx, "select pg_current_wal_insert_lsn()::text").Scan(&target)
	conn.Close(ctx)
	if err != nil {
		return err
	}
	for _, s := range standbys {
		if err := s.waitReplay(ctx, target); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) waitReplay(ctx context.Context, target string) error {
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		var done bool
		err := conn.QueryRow(ctx, "select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)", target).Scan(&done)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("standby on port %d has not replayed %s: %w", c.Port, target, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Promote ends a standby's recovery and waits until it is a primary of its
// own, on a new timeline; its former primary no longer feeds it.
func (c *Cluster) Promote(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ok bool
	if err := conn.QueryRow(ctx, "select pg_promote(true, 30)").Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("standby on port %d was not promoted within 30s", c.Port)
	}
	return nil
}
