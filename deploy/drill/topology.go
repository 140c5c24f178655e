package drill

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// form is the shape of a drill run.
type form struct {
	name string
	// standby: the primary has a streaming standby, which the first node
	// reads from.
	standby bool
	// modes are the nodes' snapshot sources: "db" reads the snapshot
	// svc-introspect publish stores, "live" introspects itself.
	modes []string
	// short: only the steps marked Short.
	short            bool
	readers, writers int
	// pause is each client's wait between requests; baseline, pre and
	// post are how long the load runs before the first step, before a
	// step's migration, and after every node serves its version.
	pause, baseline, pre, post time.Duration
	// convergenceBound fails the run when a step takes longer from
	// COMMIT to every node serving it; 0 reports without judging.
	convergenceBound time.Duration
	// bouncer puts PgBouncer in transaction mode between the nodes'
	// requests and the primary, with SVC's defaults otherwise (prepared
	// statements on, which the nodes turn off by themselves on finding
	// the pooler) and LISTEN on a direct db-channel-uri.
	bouncer bool
}

// withBouncer is f through PgBouncer.
func withBouncer(f form) form {
	f.bouncer = true
	f.name += " (PgBouncer)"
	return f
}

// shortForm runs in CI: a few migrations against one node.
var shortForm = form{name: "short", modes: []string{"db"}, short: true, readers: 4, writers: 2,
	pause: 3 * time.Millisecond, baseline: 500 * time.Millisecond, pre: 300 * time.Millisecond, post: 400 * time.Millisecond}

// fullForm is every migration against three nodes, one of them reading
// from a standby; run by hand (-drill.full).
var fullForm = form{name: "full", standby: true, modes: []string{"db", "db", "live"}, readers: 6, writers: 4,
	pause: 5 * time.Millisecond, baseline: time.Second, pre: 400 * time.Millisecond, post: 600 * time.Millisecond,
	convergenceBound: time.Second}

// jwtSecret signs the authenticated clients' token.
const jwtSecret = "drill-secret-drill-secret-drill-secret-0123"

// topology is the database and the svc-serve nodes of a run.
type topology struct {
	primary, standby *pgtest.Cluster
	bouncer          *pgtest.PgBouncer
	introspect       string
	nodes            []*node
	conn             *pgx.Conn // the migrations' session, as superuser
}

// start builds the programs into dir, starts PostgreSQL, creates the
// schema, publishes its first snapshot and starts the nodes. stop undoes
// what was started, also after an error.
func start(ctx context.Context, f form, dir string) (_ *topology, stop func(), err error) {
	top := &topology{}
	var undo []func()
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	serve, introspect, err := buildPrograms(dir)
	if err != nil {
		return nil, stop, err
	}
	top.introspect = introspect
	if f.standby {
		set, err := pgtest.StartReplicaSet(ctx, 1, pgtest.Options{})
		if err != nil {
			return nil, stop, err
		}
		undo = append(undo, set.Stop)
		top.primary, top.standby = set.Primary, set.Standbys[0]
	} else {
		c, err := pgtest.Start(ctx, pgtest.Options{})
		if err != nil {
			return nil, stop, err
		}
		undo = append(undo, c.Stop)
		top.primary = c
	}
	if top.conn, err = pgx.Connect(ctx, top.primary.URI); err != nil {
		return nil, stop, err
	}
	undo = append(undo, func() { top.conn.Close(context.Background()) })
	if _, err := top.conn.Exec(ctx, initialSQL); err != nil {
		return nil, stop, fmt.Errorf("initial schema: %w", err)
	}
	if _, err := top.publish(ctx, []string{"api"}); err != nil {
		return nil, stop, err
	}
	if f.bouncer {
		if top.bouncer, err = pgtest.StartPgBouncer(ctx, top.primary.URI, []string{"authenticator"}); err != nil {
			return nil, stop, err
		}
		undo = append(undo, top.bouncer.Stop)
	}
	if top.standby != nil {
		if err := pgtest.WaitReplayed(ctx, top.primary, top.standby); err != nil {
			return nil, stop, err
		}
	}
	for i, mode := range f.modes {
		cfg := nodeConfig{
			"SVC_DB_URI": as(top.primary.URI, "authenticator"), "SVC_DB_SCHEMAS": "api",
			"SVC_DB_ANON_ROLE": "web_anon", "SVC_JWT_SECRET": jwtSecret,
		}
		desc := "live introspection"
		if mode == "db" {
			cfg["SVC_SNAPSHOT"] = "db"
			desc = "published snapshot"
		}
		if top.bouncer != nil {
			cfg["SVC_DB_URI"] = top.bouncer.URI(cfg["SVC_DB_URI"])
			cfg["SVC_DB_CHANNEL_URI"] = as(top.primary.URI, "authenticator")
			desc += ", requests through PgBouncer"
		}
		if i == 0 && top.standby != nil {
			cfg["SVC_DB_REPLICA_URIS"] = as(top.standby.URI, "authenticator")
			desc += ", reads on the standby"
		}
		n, err := startNode(serve, fmt.Sprintf("node%c", 'A'+i), desc, cfg)
		if err != nil {
			return nil, stop, err
		}
		undo = append(undo, n.stop)
		top.nodes = append(top.nodes, n)
	}
	return top, stop, nil
}

// buildPrograms builds svc-serve and svc-introspect into dir, from the
// repository this package sits in.
func buildPrograms(dir string) (serve, introspect string, err error) {
	for _, name := range []string{"svc-serve", "svc-introspect"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("build %s: %v\n%s", name, err, out)
		}
	}
	return filepath.Join(dir, "svc-serve"), filepath.Join(dir, "svc-introspect"), nil
}

// as is uri with the user replaced.
func as(uri, user string) string {
	u, _ := url.Parse(uri)
	u.User = url.User(user)
	return u.String()
}

var publishedRE = regexp.MustCompile(`(?m)^snapshot ([0-9a-f]{12}) in `)

// publish dumps schemas and publishes the snapshot, as a CI step would;
// it returns the fingerprint's first 12 digits, as servers log it. The
// servers expose at most schemas when it runs (a step that drops an
// exposed schema reloads their configuration first), which publish is
// told, since it would otherwise refuse a snapshot that drops one the
// active snapshot covers.
func (top *topology) publish(ctx context.Context, schemas []string) (string, error) {
	list := strings.Join(schemas, ",")
	cmd := exec.CommandContext(ctx, top.introspect, "publish", "--db-uri", top.primary.URI,
		"--db-schemas", list, "--servers-db-schemas", list, "--grant-to", "authenticator")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("publish: %v\n%s", err, out)
	}
	m := publishedRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("publish said %q; no fingerprint in it", out)
	}
	return string(m[1]), nil
}

// token is a signed HS256 token for web_user, subject u1.
func token() string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims := enc.EncodeToString([]byte(`{"role":"web_user","sub":"u1"}`))
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(head + "." + claims))
	return head + "." + claims + "." + enc.EncodeToString(mac.Sum(nil))
}
