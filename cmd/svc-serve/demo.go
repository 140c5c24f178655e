package main

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"strconv"

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
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: 3000, Usage: "HTTP port"},
			&cli.StringFlag{Name: "log-level", Value: "info"},
		},
		Action: func(c *cli.Context) error {
			return demo(c.Context, c.Int("port"), c.String("log-level"))
		},
	}
}

// demo starts a cluster from the machine's PostgreSQL binaries, loads the
// sample schema and serves it until interrupted; the cluster goes with it.
func demo(ctx context.Context, port int, logLevel string) error {
	fmt.Println("starting a throwaway PostgreSQL ...")
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

	sources := config.Sources{Flags: map[string]string{
		"db-uri": u.String(), "db-schemas": "api", "db-anon-role": "web_anon",
		"server-host": "127.0.0.1", "server-port": strconv.Itoa(port), "log-level": logLevel}}
	cfg, _, err := config.Load(sources)
	if err != nil {
		return err
	}
	return serve(ctx, sources, cfg, newLogger(logLevel, "text"), func(addr string) {
		base := "http://" + addr
		fmt.Printf("\nSVC demo is serving schema \"api\" at %s (Ctrl-C stops it and removes the database)\n\n", base)
		for _, ex := range []string{
			"/authors",
			"/books?select=title,year&order=year.desc&limit=3",
			"/books?year=gte.1970&select=id,title",
			"/books_by_decade",
		} {
			fmt.Printf("  curl '%s%s'\n", base, ex)
		}
		fmt.Printf("\nDatabase (superuser): %s\n", cluster.URI)
		fmt.Println("Port: " + strconv.Itoa(port))
	})
}
