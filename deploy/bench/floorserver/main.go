// Command floorserver is a measuring stick, not a server: the least a Go
// process can do to answer the load benchmark's lookup, page and insert
// requests the way SVC does, so that SVC's CPU per request can be read
// against the floor of its design on the same machine. Per request it reads
// the request head (and an insert's body), sends the statements SVC sends
// for that workload (the set-up and main statements of
// deploy/bench/KIND.pgbench, which run.sh holds to SVC's own, and the
// settings read after a streamed read) as prepared statements in one
// pipelined write ending in one Sync, reads the answer, joining a read's
// rows into a JSON array as SVC does, and writes the body in one write. It parses no headers, checks nothing
// and plans nothing; an unknown path gets 404.
//
//	floorserver -scripts deploy/bench
//
// It reads svc-serve's SVC_DB_URI, SVC_DB_POOL, SVC_SERVER_HOST and
// SVC_SERVER_PORT, so run.sh's VARIANTS can start it in svc-serve's place
// (VARIANT_floor="BIN=path/to/floorserver").
//
// FLOOR_PIPELINE=k measures a design SVC does not have: each session is a
// lane that takes up to k waiting requests at once and sends their
// transactions in one write, each with its own Sync (so each commits or
// fails alone), then reads their answers in order. k = 1 is the lane's
// hand-off alone; unset (0), a request takes a session for itself, as SVC
// does.
//
// FLOOR_HTTP1=1 serves the same work through SVC's HTTP server
// (server/http1) and a plain http.Handler, in place of reading the
// socket itself: the floor of any server written as an http.Handler, so
// that the benchmark can tell what SVC's HTTP layer costs from what its
// handler does (http1.go).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// workload is one kind's statements and how a request's values bind to
// the main statement's parameters, in order.
type workload struct {
	setup, main string
	// after is the statement that reads the response settings after the
	// main one, "" for none.
	after  string
	params []string // query parameters, or "body" for the request body
}

// settingsPrefix starts the statement SVC sends after a streamed read to
// read the response settings (query.SettingsSQL).
const settingsPrefix = "select null::bigint as total_count, null::boolean as page_count,"

func main() {
	scripts := flag.String("scripts", "deploy/bench", "directory holding lookup.pgbench, page.pgbench and insert.pgbench")
	flag.Parse()
	kinds := map[string]*workload{}
	for kind, params := range map[string][]string{
		"lookup": {"id"},
		"page":   {"author_id", "limit"},
		"insert": {"body"},
	} {
		w, err := readScript(filepath.Join(*scripts, kind+".pgbench"), params)
		if err != nil {
			log.Fatal(err)
		}
		kinds[kind] = w
	}
	size, err := strconv.Atoi(getenv("SVC_DB_POOL", "10"))
	if err != nil || size < 1 {
		log.Fatalf("SVC_DB_POOL: %q is not a pool size", os.Getenv("SVC_DB_POOL"))
	}
	depth, err := strconv.Atoi(getenv("FLOOR_PIPELINE", "0"))
	if err != nil || depth < 0 {
		log.Fatalf("FLOOR_PIPELINE: %q is not a number of requests", os.Getenv("FLOOR_PIPELINE"))
	}
	sessions := make([]*session, size)
	for i := range sessions {
		if sessions[i], err = openSession(os.Getenv("SVC_DB_URI"), kinds); err != nil {
			log.Fatal(err)
		}
	}
	run := exclusive(sessions)
	if depth > 0 {
		run = lanes(sessions, depth)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(getenv("SVC_SERVER_HOST", "127.0.0.1"), getenv("SVC_SERVER_PORT", "3000")))
	if err != nil {
		log.Fatal(err)
	}
	if os.Getenv("FLOOR_HTTP1") == "1" {
		log.Fatal(serveHTTP1(ln, kinds, run))
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, kinds, run)
	}
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// pgbenchVar is a pgbench variable in a statement; marked is the insert
// script's /*$1*/-marked expression standing for SVC's bind parameter.
var (
	pgbenchVar = regexp.MustCompile(`:[A-Za-z_]\w*`)
	marked     = regexp.MustCompile(`/\*\$1\*/\('[^;]*?'\)::json`)
)

// readScript takes a pgbench script's set-up statement and main statement,
// each variable of the main one made a bind parameter.
func readScript(path string, params []string) (*workload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w := &workload{params: params}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "select pg_catalog.set_config('role'"):
			w.setup = strings.TrimSuffix(line, ";")
		case strings.HasPrefix(line, settingsPrefix):
			w.after = strings.TrimSuffix(line, ";")
		case strings.HasPrefix(line, "select ") || strings.HasPrefix(line, "with "):
			// The insert's body is its marked expression, $1; any
			// other variable comes after it.
			n := 0
			if marked.MatchString(line) {
				line, n = marked.ReplaceAllString(line, "$$1"), 1
			}
			w.main = strings.TrimSuffix(numberVars(line, n), ";")
		}
	}
	if w.setup == "" || w.main == "" {
		return nil, fmt.Errorf("%s: no set-up or main statement", path)
	}
	return w, nil
}

// numberVars writes each pgbench variable of sql as a bind parameter,
// numbered on from after; a :: cast is not a variable.
func numberVars(sql string, after int) string {
	var b strings.Builder
	last := 0
	for _, m := range pgbenchVar.FindAllStringIndex(sql, -1) {
		if m[0] > 0 && (sql[m[0]-1] == ':' || isWord(sql[m[0]-1])) {
			continue
		}
		after++
		b.WriteString(sql[last:m[0]])
		b.WriteString("$" + strconv.Itoa(after))
		last = m[1]
	}
	b.WriteString(sql[last:])
	return b.String()
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// session is one connection with every workload's statements prepared.
type session struct {
	pc    *pgconn.PgConn
	names map[*workload][3]string
}

func openSession(uri string, kinds map[string]*workload) (*session, error) {
	ctx := context.Background()
	pc, err := pgconn.Connect(ctx, uri)
	if err != nil {
		return nil, err
	}
	s := &session{pc: pc, names: map[*workload][3]string{}}
	for _, w := range kinds {
		var names [3]string
		for j := range names {
			names[j] = "f" + strconv.Itoa(3*len(s.names)+j)
		}
		// The main statement is prepared as the anonymous role, whose
		// schema USAGE the parse needs: after the set-up, in a transaction.
		if err := pc.Exec(ctx, "begin").Close(); err != nil {
			return nil, err
		}
		if _, err := pc.Exec(ctx, w.setup).ReadAll(); err != nil {
			return nil, err
		}
		for j, sql := range [3]string{w.setup, w.main, w.after} {
			if sql == "" {
				continue
			}
			if _, err := pc.Prepare(ctx, names[j], sql, nil); err != nil {
				return nil, fmt.Errorf("%s: %w", sql, err)
			}
		}
		if err := pc.Exec(ctx, "commit").Close(); err != nil {
			return nil, err
		}
		s.names[w] = names
	}
	return s, nil
}

// runner runs one request's transaction: its main statement's body column,
// or the error PostgreSQL answered (failed) or the connection's (err).
type runner func(w *workload, args [][]byte) (body []byte, failed, err error)

// exclusive runs each request on a session it takes for itself.
func exclusive(sessions []*session) runner {
	pool := make(chan *session, len(sessions))
	for _, s := range sessions {
		pool <- s
	}
	return func(w *workload, args [][]byte) ([]byte, error, error) {
		s := <-pool
		defer func() { pool <- s }()
		s.send(w, args)
		if err := s.pc.Frontend().Flush(); err != nil {
			return nil, nil, err
		}
		return s.receive(w)
	}
}

// job is a request waiting for a lane, and its answer once run.
type job struct {
	w    *workload
	args [][]byte
	done chan answer
}

type answer struct {
	body        []byte
	failed, err error
}

// lanes runs each request in the next batch of one of sessions, each a
// lane taking up to depth waiting requests at a time.
func lanes(sessions []*session, depth int) runner {
	jobs := make(chan *job, len(sessions)*depth)
	for _, s := range sessions {
		go s.lane(jobs, depth)
	}
	return func(w *workload, args [][]byte) ([]byte, error, error) {
		j := &job{w: w, args: args, done: make(chan answer, 1)}
		jobs <- j
		a := <-j.done
		return a.body, a.failed, a.err
	}
}

// lane takes the requests waiting in jobs, up to depth at a time, and
// sends each batch in one write, reading the answers in order. The whole
// batch is written before any answer is read, which is safe while what it
// writes fits in the sockets' buffers, as the benchmark's few small
// requests do; a server would have to read while it writes.
func (s *session) lane(jobs chan *job, depth int) {
	batch := make([]*job, 0, depth)
	for {
		batch = append(batch[:0], <-jobs)
	fill:
		for len(batch) < depth {
			select {
			case j := <-jobs:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		for _, j := range batch {
			s.send(j.w, j.args)
		}
		err := s.pc.Frontend().Flush()
		for _, j := range batch {
			var a answer
			if a.err = err; err == nil {
				a.body, a.failed, a.err = s.receive(j.w)
			}
			err = a.err
			j.done <- a
		}
	}
}

// serve answers c's requests one after another until it closes.
func serve(c net.Conn, kinds map[string]*workload, run runner) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 4096)
	out := make([]byte, 0, 64<<10)
	for {
		kind, args, err := readRequest(r, kinds)
		if err != nil {
			return
		}
		out = out[:0]
		if kind == nil {
			out = append(out, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"...)
		} else {
			body, failed, err := run(kind, args)
			if err != nil {
				// A session whose protocol state is lost would skew every
				// figure after it: a measuring stick stops instead.
				log.Fatal(err)
			}
			if failed != nil {
				log.Print(failed)
				return
			}
			if kind.params[0] == "body" {
				out = append(out, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"...)
			} else {
				out = append(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: "...)
				out = strconv.AppendInt(out, int64(len(body)), 10)
				out = append(out, "\r\n\r\n"...)
				out = append(out, body...)
			}
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// maxBody bounds an insert's body; the benchmark's are under 100 bytes.
const maxBody = 64 << 10

// readRequest reads one request: its workload (nil for an unknown path)
// and the main statement's bind values.
func readRequest(r *bufio.Reader, kinds map[string]*workload) (*workload, [][]byte, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, nil, err
	}
	method, target, _ := strings.Cut(line, " ")
	target, _, _ = strings.Cut(target, " ")
	length := 0
	for {
		h, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, err
		}
		if h == "\r\n" {
			break
		}
		if name, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(name, "content-length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if length < 0 || length > maxBody {
		return nil, nil, fmt.Errorf("body of %d bytes", length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, nil, err
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, nil, err
	}
	kind, args := route(kinds, method, u, body)
	return kind, args, nil
}

// route finds a request's workload (nil for none) and the main
// statement's bind values.
func route(kinds map[string]*workload, method string, u *url.URL, body []byte) (*workload, [][]byte) {
	q := u.Query()
	var kind *workload
	switch {
	case method == "POST" && u.Path == "/reviews":
		kind = kinds["insert"]
	case u.Path == "/books" && q.Has("id"):
		kind = kinds["lookup"]
	case u.Path == "/books" && q.Has("author_id"):
		kind = kinds["page"]
	default:
		return nil, nil
	}
	args := make([][]byte, len(kind.params))
	for i, p := range kind.params {
		if p == "body" {
			args[i] = body
			continue
		}
		args[i] = []byte(strings.TrimPrefix(q.Get(p), "eq."))
	}
	return kind, args
}

// send queues w's set-up and main statements with args, ending in a
// Sync, for the next flush.
func (s *session) send(w *workload, args [][]byte) {
	fe := s.pc.Frontend()
	names := s.names[w]
	fe.SendBind(&pgproto3.Bind{PreparedStatement: names[0]})
	fe.SendExecute(&pgproto3.Execute{})
	fe.SendBind(&pgproto3.Bind{PreparedStatement: names[1], Parameters: args})
	fe.SendExecute(&pgproto3.Execute{})
	if w.after != "" {
		fe.SendBind(&pgproto3.Bind{PreparedStatement: names[2]})
		fe.SendExecute(&pgproto3.Execute{})
	}
	fe.SendSync(&pgproto3.Sync{})
}

// receive reads one sent transaction of w's answer, up to its Sync's
// ReadyForQuery: the main statement's body, its rows' texts joined as
// json_agg joins them, or the error PostgreSQL answered (failed) or the
// connection's (err).
func (s *session) receive(w *workload) (body []byte, failed, err error) {
	fe := s.pc.Frontend()
	results := 0
	for {
		msg, err := fe.Receive()
		if err != nil {
			return nil, nil, err
		}
		switch msg := msg.(type) {
		case *pgproto3.DataRow:
			// A row of the body has its flag (page_count) set.
			if results == 1 && len(msg.Values) > 2 && msg.Values[1] != nil {
				if body == nil {
					body = append(body, '[')
				} else {
					body = append(body, ", \n "...)
				}
				body = append(body, msg.Values[2]...)
			}
		case *pgproto3.CommandComplete:
			results++
		case *pgproto3.ErrorResponse:
			failed = errors.New(msg.Message)
		case *pgproto3.ReadyForQuery:
			if w.params[0] == "body" {
				return nil, failed, nil // an insert answers no body
			}
			if body == nil {
				return []byte("[]"), failed, nil
			}
			return append(body, ']'), failed, nil
		}
	}
}
