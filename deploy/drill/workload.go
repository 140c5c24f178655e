package drill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ledger is what the writers wrote: for every row a writer created, its
// owner and each qty it ever asked for (recorded before the request is
// sent, so a reader may see it as soon as it commits).
type ledger struct {
	mu     sync.Mutex
	rows   map[int]*rowLog
	latest []int // ids lately written, for readers to ask for
}

type rowLog struct {
	owner role
	qtys  map[int]bool
}

func newLedger() *ledger { return &ledger{rows: map[int]*rowLog{}} }

func (l *ledger) record(id int, owner role, qty int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	row := l.rows[id]
	if row == nil {
		row = &rowLog{owner: owner, qtys: map[int]bool{}}
		l.rows[id] = row
		l.latest = append(l.latest, id)
		if len(l.latest) > 64 {
			l.latest = l.latest[1:]
		}
	}
	row.qtys[qty] = true
}

func (l *ledger) owner(id int) (role, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	row := l.rows[id]
	if row == nil {
		return 0, false
	}
	return row.owner, true
}

func (l *ledger) wrote(id, qty int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	row := l.rows[id]
	return row != nil && row.qtys[qty]
}

// recent is up to n ids lately written.
func (l *ledger) recent(rng *rand.Rand, n int) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for range n {
		if len(l.latest) == 0 {
			break
		}
		out = append(out, l.latest[rng.IntN(len(l.latest))])
	}
	return out
}

// answer is one request and what came back.
type answer struct {
	req        *request
	client     string
	node       int
	sent, done time.Time
	status     int
	code       string // the error body's code
	body       []byte
	err        error // no answer at all
	retryAfter string
}

// phase is what clients know of the schema: the version in force, and
// during a migration the one coming, either of which a client may use.
type phase struct {
	old, new *Version
	mixed    bool
}

// workload runs the clients.
type workload struct {
	nodes   []*node
	token   string
	http    *http.Client
	led     *ledger
	phase   atomic.Pointer[phase]
	pause   time.Duration
	mu      sync.Mutex
	answers []*answer
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newWorkload(nodes []*node, token string, v *Version, pause time.Duration) *workload {
	w := &workload{nodes: nodes, token: token, led: newLedger(), pause: pause, stop: make(chan struct{}),
		http: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	w.phase.Store(&phase{old: v, new: v})
	return w
}

// clientVersion is the version a client builds its next request for.
func (w *workload) clientVersion(rng *rand.Rand) *Version {
	p := w.phase.Load()
	if p.mixed && rng.IntN(2) == 0 {
		return p.old
	}
	return p.new
}

// start runs readers reading clients (alternating roles) and writers
// writing clients, each its own range of ids, anonymous and
// authenticated in turn.
func (w *workload) start(readers, writers int) {
	for i := range readers {
		w.run(fmt.Sprintf("reader%d", i), i, func(rng *rand.Rand) {
			r := role(i % 2)
			w.do(fmt.Sprintf("reader%d", i), rng, readRequest(rng, w.clientVersion(rng), r, w.led))
		})
	}
	for i := range writers {
		wr := &writer{w: w, name: fmt.Sprintf("writer%d", i), role: role(i % 2), next: (i + 1) * writerRange}
		w.run(wr.name, i, wr.step)
	}
}

// writerRange spaces the writers' ids; a writer's role follows from its
// range (ledger.owner records it too).
const writerRange = 100000

func (w *workload) run(name string, seed int, step func(rng *rand.Rand)) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(len(name))<<32|uint64(name[0])))
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(w.pause):
			}
			step(rng)
		}
	}()
}

func (w *workload) halt() {
	close(w.stop)
	w.wg.Wait()
}

// do sends req to a random node and records the answer.
func (w *workload) do(client string, rng *rand.Rand, req *request) *answer {
	n := rng.IntN(len(w.nodes))
	a := &answer{req: req, client: client, node: n}
	var body io.Reader
	if req.body != "" {
		body = bytes.NewBufferString(req.body)
	}
	hr, _ := http.NewRequestWithContext(context.Background(), req.method, "http://"+w.nodes[n].api+req.path, body)
	if req.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.method != "GET" {
		prefer := "return=representation"
		if req.prefer != "" {
			prefer += ", " + req.prefer
		}
		hr.Header.Set("Prefer", prefer)
	}
	if req.role == user {
		hr.Header.Set("Authorization", "Bearer "+w.token)
	}
	if req.profile != "" {
		hr.Header.Set("Accept-Profile", req.profile)
		hr.Header.Set("Content-Profile", req.profile)
	}
	a.sent = time.Now()
	resp, err := w.http.Do(hr)
	if err == nil {
		a.body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		a.status = resp.StatusCode
		a.retryAfter = resp.Header.Get("Retry-After")
	}
	a.done = time.Now()
	a.err = err
	if a.status >= 300 {
		var e struct {
			Code string `json:"code"`
		}
		json.Unmarshal(a.body, &e)
		a.code = e.Code
	}
	w.mu.Lock()
	w.answers = append(w.answers, a)
	w.mu.Unlock()
	return a
}

// writer owns a range of ids and cycles through them: insert, updates and
// bumps, a delete when its role may, then the next id. It knows its
// current row exactly until an answer leaves the outcome open (a 5xx, no
// answer); an update with an absolute qty then tells it again.
type writer struct {
	w      *workload
	name   string
	role   role
	next   int
	id     int
	exists bool
	known  bool // exists and qty are known
	qty    int
	ops    int
	tagged bool
}

func (wr *writer) step(rng *rand.Rand) {
	cv := wr.w.clientVersion(rng)
	switch {
	case wr.id == 0 || (wr.known && !wr.exists):
		wr.next++
		wr.id, wr.ops = wr.next, 0
		wr.exists, wr.known, wr.tagged = false, true, false
		wr.insert(rng, cv)
	case !wr.known:
		wr.update(rng, cv)
	case !wr.tagged && wr.exists:
		wr.tag(rng)
	case wr.ops >= 5 && cv.canDelete(wr.role):
		wr.delete(rng)
	case wr.ops >= 5:
		wr.id = 0 // keep the row; go on with a new one
	default:
		wr.change(rng, cv)
	}
	wr.ops++
}

// change updates, bumps or sets the mood of the current row.
func (wr *writer) change(rng *rand.Rand, cv *Version) {
	switch rng.IntN(3) {
	case 0:
		wr.update(rng, cv)
	case 1:
		wr.bump(rng, cv)
	default:
		wr.setMood(rng)
	}
}

// settled applies a write's answer: a success applies apply; a 4xx
// changed nothing; anything else may or may not have.
func (wr *writer) settled(a *answer, apply func()) {
	switch {
	case a.err == nil && a.status < 300:
		apply()
	case a.err == nil && a.status >= 400 && a.status < 500:
	default:
		wr.known = false
	}
}

func (wr *writer) insert(rng *rand.Rand, cv *Version) {
	id := wr.id
	body, refs := writeBody(cv, id, 1, true)
	cols := pickCols(rng, cv.ItemCols, "qty")
	wr.w.led.record(id, wr.role, 1)
	req := &request{kind: "insert", role: wr.role, method: "POST", path: "/items?select=" + joinCols(cols), body: body,
		refs: append(refs, columnRefs("items", cols)...), okStatus: 201}
	req.check = func(b []byte, c *Version) error {
		return exactRows(b, cols, c, wr.role, wr.w.led, id, 1)
	}
	a := wr.w.do(wr.name, rng, req)
	if a.err == nil && a.status == 409 {
		wr.known = false // written by an attempt whose answer was lost
		return
	}
	wr.settled(a, func() { wr.exists, wr.known, wr.qty = true, true, 1 })
}

func (wr *writer) update(rng *rand.Rand, cv *Version) {
	id, qty := wr.id, 2+rng.IntN(60)
	body, refs := writeBody(cv, id, qty, false)
	cols := []string{"id", "qty", "mood", "size"}
	wr.w.led.record(id, wr.role, qty)
	known, exists := wr.known, wr.exists
	req := &request{kind: "update", role: wr.role, method: "PATCH", path: "/items?id=eq." + strconv.Itoa(id) + "&select=" + joinCols(cols),
		body: body, refs: append(refs, columnRefs("items", cols)...), okStatus: 200}
	req.check = func(b []byte, c *Version) error {
		if !known {
			return checkItems(b, cols, c, wr.role, wr.w.led, itemWant{ids: []int{id}})
		}
		if !exists {
			return exactRows(b, cols, c, wr.role, wr.w.led, 0, 0)
		}
		return exactRows(b, cols, c, wr.role, wr.w.led, id, qty)
	}
	a := wr.w.do(wr.name, rng, req)
	wr.settled(a, func() {
		var rows []any
		decode(a.body, &rows)
		wr.exists, wr.known, wr.qty = len(rows) == 1, true, qty
	})
}

func (wr *writer) bump(rng *rand.Rand, cv *Version) {
	id, qty := wr.id, wr.qty+1
	wr.w.led.record(id, wr.role, qty)
	req := &request{kind: "call", role: wr.role, method: "POST", path: "/rpc/bump", okStatus: 200, volatile: true}
	if cv.BumpNew {
		req.body = fmt.Sprintf(`{"item_id":%d,"amount":1}`, id)
		req.refs = []ref{{kind: refFunction, name: sigBumpNew}}
		req.check = func(b []byte, _ *Version) error {
			var rows []map[string]any
			if err := decode(b, &rows); err != nil || len(rows) != 1 {
				return fmt.Errorf("want [{id, qty}], got %s", b)
			}
			if i, _ := intOf(rows[0]["id"]); i != id || len(rows[0]) != 2 || fmt.Sprint(rows[0]["qty"]) != strconv.Itoa(qty) {
				return fmt.Errorf("want [{\"id\":%d,\"qty\":%d}], got %s", id, qty, b)
			}
			return nil
		}
	} else {
		req.body = fmt.Sprintf(`{"item":%d}`, id)
		req.refs = []ref{{kind: refFunction, name: sigBumpOld}}
		req.check = func(b []byte, _ *Version) error {
			if string(bytes.TrimSpace(b)) != strconv.Itoa(qty) {
				return fmt.Errorf("want %d, got %s", qty, b)
			}
			return nil
		}
	}
	a := wr.w.do(wr.name, rng, req)
	wr.settled(a, func() { wr.qty = qty })
}

// tag gives the row its one tag, once: ignoring a duplicate, so an
// answer lost after the tag was written changes nothing.
func (wr *writer) tag(rng *rand.Rand) {
	id := wr.id
	cols := []string{"item_id", "label"}
	req := &request{kind: "insert", role: wr.role, method: "POST", path: "/tags?on_conflict=item_id,label&select=item_id,label",
		prefer: "resolution=ignore-duplicates", body: fmt.Sprintf(`{"item_id":%d,"label":%q}`, id, writerTag(id)), okStatus: 201}
	for _, c := range cols {
		req.refs = append(req.refs, ref{kind: refBodyColumn, rel: "tags", name: c}, ref{kind: refColumn, rel: "tags", name: c})
	}
	req.check = func(b []byte, _ *Version) error {
		want := fmt.Sprintf(`[{"item_id":%d,"label":%q}]`, id, writerTag(id))
		if s := string(bytes.TrimSpace(b)); s != want && s != "[]" {
			return fmt.Errorf("want %s or [], got %s", want, b)
		}
		return nil
	}
	a := wr.w.do(wr.name, rng, req)
	wr.settled(a, func() { wr.tagged = true })
}

func writerTag(id int) string { return fmt.Sprintf("w%d", id) }

// setMood sets the row's mood through a VOLATILE function whose argument
// is the enum, to the mood the row's qty already gives it.
func (wr *writer) setMood(rng *rand.Rand) {
	id, mood := wr.id, moodOf(wr.qty)
	req := &request{kind: "call", role: wr.role, method: "POST", path: "/rpc/set_mood", okStatus: 200, volatile: true,
		body: fmt.Sprintf(`{"item":%d,"m":%q}`, id, mood)}
	req.check = func(b []byte, _ *Version) error {
		if s := string(bytes.TrimSpace(b)); s != strconv.Quote(mood) {
			return fmt.Errorf("want %q, got %s", mood, b)
		}
		return nil
	}
	wr.settled(wr.w.do(wr.name, rng, req), func() {})
}

func (wr *writer) delete(rng *rand.Rand) {
	id := wr.id
	req := &request{kind: "delete", role: wr.role, method: "DELETE", path: "/items?id=eq." + strconv.Itoa(id) + "&select=id",
		refs: []ref{{kind: refDelete}, {kind: refColumn, rel: "items", name: "id"}}, okStatus: 200}
	req.check = func(b []byte, c *Version) error { return exactRows(b, []string{"id"}, c, wr.role, wr.w.led, id, 0) }
	a := wr.w.do(wr.name, rng, req)
	wr.settled(a, func() { wr.exists = false })
}

// exactRows checks a write's representation: exactly row id (none when
// id is 0), at qty when qty is not 0.
func exactRows(b []byte, cols []string, c *Version, r role, led *ledger, id, qty int) error {
	var rows []map[string]any
	if err := decode(b, &rows); err != nil {
		return fmt.Errorf("not an array of objects: %v", err)
	}
	if id == 0 {
		if len(rows) != 0 {
			return fmt.Errorf("want no row, got %s", b)
		}
		return nil
	}
	if len(rows) != 1 {
		return fmt.Errorf("want row %d, got %s", id, b)
	}
	got, err := checkItem(rows[0], cols, c, r, led)
	if err != nil {
		return err
	}
	if q, has := rows[0]["qty"]; got != id || (qty != 0 && has && fmt.Sprint(q) != strconv.Itoa(qty)) {
		return fmt.Errorf("want row %d at qty %d, got %s", id, qty, b)
	}
	return nil
}

func joinCols(cols []string) string {
	var b bytes.Buffer
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	return b.String()
}
