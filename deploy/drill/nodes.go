package drill

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/svc-dev/svc/sql/pgtest"
)

// node is one svc-serve process. Its log is read as it is written: the
// line "schema snapshot loaded" is printed once the new snapshot is in
// force, so the time the drill reads it bounds from above when the node
// started serving the new version.
type node struct {
	name string
	// mode says where it gets its snapshot, for the report.
	mode       string
	api, admin string
	cmd        *exec.Cmd
	exited     chan struct{}

	mu     sync.Mutex
	events []event
	tail   []string // the last lines of its log, for a failure
}

// event is a line of the node's log the drill acts on.
type event struct {
	at time.Time
	// kind is "snapshot" (a snapshot put in force), "config" (a
	// configuration reloaded) or "error".
	kind        string
	fingerprint string // of a snapshot, 12 digits as logged
	line        string
}

// nodeConfig is a node's configuration, as SVC_* variables.
type nodeConfig map[string]string

// startNode runs serve with cfg plus its ports, and returns once it
// answers /ready.
func startNode(serve, name, mode string, cfg nodeConfig) (*node, error) {
	n := &node{name: name, mode: mode, api: "127.0.0.1:" + freePort(), admin: "127.0.0.1:" + freePort(), exited: make(chan struct{})}
	env := []string{}
	for _, kv := range os.Environ() {
		// The drill's configuration, not the caller's, decides.
		if !strings.HasPrefix(kv, "SVC_") && !strings.HasPrefix(kv, "PGRST_") {
			env = append(env, kv)
		}
	}
	_, apiPort, _ := net.SplitHostPort(n.api)
	_, adminPort, _ := net.SplitHostPort(n.admin)
	cfg["SVC_SERVER_HOST"], cfg["SVC_SERVER_PORT"], cfg["SVC_ADMIN_SERVER_PORT"] = "127.0.0.1", apiPort, adminPort
	cfg["SVC_LOG_FORMAT"] = "json"
	for k, v := range cfg {
		env = append(env, k+"="+v)
	}
	n.cmd = exec.Command(serve)
	n.cmd.Env = env
	pr, pw := io.Pipe()
	n.cmd.Stdout, n.cmd.Stderr = pw, pw
	if err := n.cmd.Start(); err != nil {
		return nil, err
	}
	go n.read(pr)
	go func() {
		n.cmd.Wait()
		pw.Close()
		close(n.exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for status(probe, "http://"+n.admin+"/ready") != 200 {
		select {
		case <-n.exited:
			return nil, fmt.Errorf("%s exited during start-up:\n%s", name, n.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			n.stop()
			return nil, fmt.Errorf("%s not ready within 30s:\n%s", name, n.logTail())
		}
	}
	return n, nil
}

func (n *node) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		at := time.Now()
		var rec struct {
			Level       string `json:"level"`
			Msg         string `json:"msg"`
			Fingerprint string `json:"fingerprint"`
		}
		json.Unmarshal([]byte(line), &rec)
		var ev *event
		switch {
		case strings.HasPrefix(rec.Msg, "schema snapshot loaded"):
			ev = &event{kind: "snapshot", fingerprint: rec.Fingerprint}
		case rec.Msg == "configuration reloaded":
			ev = &event{kind: "config"}
		case rec.Level == "ERROR" || rec.Level == "CRIT":
			ev = &event{kind: "error"}
		}
		n.mu.Lock()
		if ev != nil {
			ev.at, ev.line = at, line
			n.events = append(n.events, *ev)
		}
		n.tail = append(n.tail, line)
		if len(n.tail) > 200 {
			n.tail = n.tail[1:]
		}
		n.mu.Unlock()
	}
}

// eventsSince are the node's events at or after t.
func (n *node) eventsSince(t time.Time) []event {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []event
	for _, e := range n.events {
		if !e.at.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// lastEvent is when the node last reloaded anything.
func (n *node) lastEvent() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.events) == 0 {
		return time.Time{}
	}
	return n.events[len(n.events)-1].at
}

func (n *node) logTail() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.tail, "\n")
}

func (n *node) stop() {
	pgtest.StopProcess(n.cmd.Process, n.exited, 15*time.Second)
}

// snapshotInfo is what the admin server's /snapshot says.
type snapshotInfo struct {
	Fingerprint string    `json:"fingerprint"`
	LoadedAt    time.Time `json:"loaded_at"`
}

func (n *node) snapshot() (snapshotInfo, error) {
	var s snapshotInfo
	resp, err := probe.Get("http://" + n.admin + "/snapshot")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return s, fmt.Errorf("/snapshot answered %d", resp.StatusCode)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// metric is the sum of the node's /metrics samples whose line starts
// with prefix (a name and, optionally, labels).
func (n *node) metric(prefix string) float64 {
	resp, err := probe.Get("http://" + n.admin + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, prefix) {
			var v float64
			fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
			sum += v
		}
	}
	return sum
}

// probe is the client for the admin server: a poll must not hang.
var probe = &http.Client{Timeout: 2 * time.Second}

func status(c *http.Client, u string) int {
	resp, err := c.Get(u)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func freePort() string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}
