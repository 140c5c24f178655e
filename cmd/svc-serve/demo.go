package main

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/pgtest"
	"github.com/urfave/cli/v2"
)

//go:embed demo.sql
var demoSQL string

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "start a throwaway PostgreSQL with a sample schema and serve it",
		Description: "Starts a PostgreSQL server of its own, in a temporary directory, from the machine's PostgreSQL\n" +
			"server programs (found through $SVC_PG_BIN, pg_config --bindir or /usr/lib/postgresql/*/bin), loads a\n" +
			"sample schema \"api\" (authors, books and reviews, a view, functions) and serves it on 127.0.0.1. It prints\n" +
			"curl commands: reads as the anonymous role, and an insert, an update and a function call with a token\n" +
			"signed with a secret made for the run. Ctrl-C stops it and removes the database. It reads no\n" +
			"configuration file and no SVC_* variables; the flags below are all it takes.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: 3000, Usage: "TCP port the API listens on, on 127.0.0.1; 0 picks a free one"},
			&cli.StringFlag{Name: "log-level", Value: "info",
				Usage: "least severe level logged: crit, error, warn, info (each request gets a line) or debug"},
		},
		Action: func(c *cli.Context) error {
			return demo(c.Context, os.Stdout, c.Int("port"), c.String("log-level"))
		},
	}
}

// demo starts a cluster from the machine's PostgreSQL binaries, loads the
// sample schema and serves it until interrupted; the cluster goes with it.
// It writes to out how to call the API: reads as the anonymous role, and
// an insert, an update and a function call with a token for the writer
// role, signed with a secret made for this run.
func demo(ctx context.Context, out io.Writer, port int, logLevel string) error {
	fmt.Fprintln(out, "starting a throwaway PostgreSQL ...")
	cluster, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	conn, err := pgx.Connect(ctx, cluster.URI)
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, demoSQL)
	conn.Close(ctx)
	if err != nil {
		return fmt.Errorf("load the sample schema: %w", err)
	}
	u, _ := url.Parse(cluster.URI)
	u.User = url.User("authenticator")
	secret, token, err := demoToken()
	if err != nil {
		return err
	}

	sources := config.Sources{Flags: map[string]string{
		"db-uri": u.String(), "db-schemas": "api", "db-anon-role": "web_anon", "jwt-secret": secret,
		"server-host": "127.0.0.1", "server-port": strconv.Itoa(port), "log-level": logLevel}}
	cfg, _, err := config.Load(sources)
	if err != nil {
		return err
	}
	return serve(ctx, sources, cfg, newLogger(logLevel, "text"), func(addr string) {
		writeDemoExamples(out, "http://"+addr, token)
		fmt.Fprintf(out, "\nDatabase (superuser): %s\n", cluster.URI)
		fmt.Fprintf(out, "JWT secret (jwt-secret): %s\n", secret)
	})
}

// demoToken makes a jwt-secret for this run and a token signed with it
// whose role claim names the writer role.
func demoToken() (secret, token string, err error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	secret = hex.EncodeToString(b) // 48 characters; at least 32 are needed
	token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "writer"}).SignedString([]byte(secret))
	return secret, token, err
}

// writeDemoExamples prints curl commands against base: reads first, then
// writes with token. Each command is on one line, so a shell (or the demo's
// test) can run them as printed.
func writeDemoExamples(out io.Writer, base, token string) {
	fmt.Fprintf(out, "\nSVC demo is serving schema \"api\" at %s (Ctrl-C stops it and removes the database)\n\n", base)
	fmt.Fprintln(out, "Read, as the anonymous role web_anon:")
	for _, ex := range []string{
		"/authors",
		"/books?select=title,year&order=year.desc&limit=3",
		"/books?year=gte.1970&select=id,title,authors(name)",
		"/books_by_decade",
		"/books?select=title,decade&decade=eq.1970&order=title",
	} {
		fmt.Fprintf(out, "  curl '%s%s'\n", base, ex)
	}
	fmt.Fprintln(out, "\nWrite, as the role writer, with a token signed with this run's jwt-secret:")
	fmt.Fprintf(out, "  export TOKEN=%s\n", token)
	auth := `-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'Prefer: return=representation'`
	for _, ex := range []struct{ what, method, path, body string }{
		{"insert a book", "POST", "/books", `{"title":"The Lathe of Heaven","year":1971,"author_id":2}`},
		{"update it", "PATCH", "/books?title=eq.The%20Lathe%20of%20Heaven", `{"year":1972}`},
		{"call a function", "POST", "/rpc/book_count", `{"author_id":2}`},
	} {
		fmt.Fprintf(out, "  # %s\n  curl -X %s '%s%s' %s -d '%s'\n", ex.what, ex.method, base, ex.path, auth, ex.body)
	}
	fmt.Fprintln(out, "  # without the token the write is refused (401): web_anon may only read")
	fmt.Fprintf(out, "  curl -X POST '%s/books' -H 'Content-Type: application/json' -d '{\"title\":\"Nope\",\"author_id\":1}'\n", base)
}
