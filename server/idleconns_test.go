package server_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

var idleFull = flag.Bool("idle.full", false,
	"TestIdleConnections with 10,000 connections held idle for 5 minutes (about 6 minutes in all)")

// TestIdleConnections: keep-alive connections left idle by their clients
// cost svc-serve memory, not threads, and each still answers after its
// wait. The program runs as users start it (its default HTTP server),
// with an idle timeout longer than the wait. Clients open the connections,
// send one request on each and keep them; the server's thread count must
// not follow the number of connections (a server that blocked a thread per
// idle connection would hit Go's limit of 10,000 threads). By default 300
// connections for 2 s, each of which must answer again; -idle.full holds
// 10,000 for 5 minutes, which needs a descriptor limit above 10,000 for
// this process and svc-serve (Go raises the soft limit to the hard one),
// and then logs the connections that failed (see below) and asks a new
// one to answer. The figures go to the log.
func TestIdleConnections(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the server's threads and memory from /proc")
	}
	n, hold := 300, 2*time.Second
	if *idleFull {
		n, hold = 10000, 5*time.Minute
	}
	base, _, cmd := processCmdWith(t, map[string]string{
		"server-idle-timeout": strconv.Itoa(int(hold/time.Second) + 60),
	})
	host, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	rss0, threads0 := procField(t, pid, "status", "VmRSS"), procThreads(t, pid)

	conns := make([]*idleConn, n)
	dialAll(t, host.Host, conns)
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	rss1, threads1 := procField(t, pid, "status", "VmRSS"), procThreads(t, pid)
	maxThreads, maxRSS := threads1, rss1
	for deadline := time.Now().Add(hold); time.Now().Before(deadline); {
		time.Sleep(min(10*time.Second, time.Until(deadline)))
		maxThreads = max(maxThreads, procThreads(t, pid))
		maxRSS = max(maxRSS, procField(t, pid, "status", "VmRSS"))
	}
	// Every connection answers once more after its wait.
	var failed []error
	var mu sync.Mutex
	inParallel(len(conns), func(i int) {
		if err := conns[i].get(); err != nil {
			mu.Lock()
			failed = append(failed, err)
			mu.Unlock()
		}
	})
	rss2, threads2 := procField(t, pid, "status", "VmRSS"), procThreads(t, pid)
	t.Logf("%d idle connections held %v: RSS %.1f MiB before, %.1f MiB with them open (%.1f KiB a connection), at most %.1f MiB while idle, %.1f MiB after a second request on each; threads %d before, %d open, at most %d idle, %d after",
		n, hold, mib(rss0), mib(rss1), float64(rss1-rss0)/1024/float64(n), mib(maxRSS), mib(rss2), threads0, threads1, maxThreads, threads2)
	switch {
	case len(failed) > 0 && *idleFull:
		// Held this long, a block of loopback connections may be reset or
		// time out under the server, net/http's as much as SVC's, on the
		// shared test machines; the server must still serve new ones.
		t.Logf("%d of %d connections failed their request after %v idle; the first: %v", len(failed), n, hold, failed[0])
		nc, err := net.DialTimeout("tcp", host.Host, 30*time.Second)
		if err != nil {
			t.Fatalf("a new connection after the wait: %v", err)
		}
		defer nc.Close()
		fresh := idleConn{Conn: nc, br: bufio.NewReader(nc)}
		if err := fresh.get(); err != nil {
			t.Errorf("a new connection after the wait: %v", err)
		}
	case len(failed) > 0:
		t.Errorf("%d of %d connections failed their request after %v idle; the first: %v", len(failed), n, hold, failed[0])
	}
	// A few threads more for the burst of work is Go's business; one per
	// connection is not.
	if limit := threads0 + 32; max(maxThreads, threads1, threads2) > limit {
		t.Errorf("svc-serve ran %d threads with %d idle connections, from %d before: more than %d", max(maxThreads, threads1, threads2), n, threads0, limit)
	}
}

// mib is b bytes in MiB.
func mib(b int64) float64 { return float64(b) / (1 << 20) }

// idleConn is a client's keep-alive connection.
type idleConn struct {
	net.Conn
	br *bufio.Reader
}

// get sends one request on the connection and reads its answer whole.
func (c *idleConn) get() error {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "GET /rpc/add?a=1&b=2 HTTP/1.1\r\nHost: svc\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || resp.Close {
		return fmt.Errorf("status %d, close %v", resp.StatusCode, resp.Close)
	}
	return c.SetDeadline(time.Time{})
}

// dialAll opens len(conns) connections to addr, each with one request
// answered, 64 at a time.
func dialAll(t *testing.T, addr string, conns []*idleConn) {
	t.Helper()
	var errs []error
	var emu sync.Mutex
	inParallel(len(conns), func(i int) {
		nc, err := net.DialTimeout("tcp", addr, 30*time.Second)
		if err == nil {
			c := &idleConn{Conn: nc, br: bufio.NewReader(nc)}
			if err = c.get(); err == nil {
				conns[i] = c
				return
			}
			nc.Close()
		}
		emu.Lock()
		errs = append(errs, err)
		emu.Unlock()
	})
	if len(errs) > 0 {
		t.Fatalf("%d of %d connections could not be opened and used; the first: %v", len(errs), len(conns), errs[0])
	}
}

// inParallel runs f(0) ... f(n-1) on 64 goroutines.
func inParallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// procThreads is the process's number of threads.
func procThreads(t *testing.T, pid int) int64 {
	t.Helper()
	return procField(t, pid, "status", "Threads") >> 10 // procField counts kB
}
