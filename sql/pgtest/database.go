package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/jackc/pgx/v5"
)

// LoadDatabase creates database name on the cluster uri reaches, runs the
// SQL file sqlFile in it as uri's user, and returns the new database's
// URI. Test packages that share one fixture file each load it into a
// database of their own.
func LoadDatabase(ctx context.Context, uri, name, sqlFile string) (string, error) {
	sql, err := os.ReadFile(sqlFile)
	if err != nil {
		return "", err
	}
	dbURI, err := createDatabase(ctx, uri, name)
	if err != nil {
		return "", err
	}
	db, err := pgx.Connect(ctx, dbURI)
	if err != nil {
		return "", err
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, string(sql)); err != nil {
		return "", fmt.Errorf("load %s: %w", sqlFile, err)
	}
	return dbURI, nil
}

// FreshDatabase creates database name on the cluster uri reaches,
// dropping the one of that name first, and returns the new database's
// URI: a package's tests start from an empty database even on a cluster
// an earlier run used ($SVC_TEST_DB_URI).
func FreshDatabase(ctx context.Context, uri, name string) (string, error) {
	if err := Exec(ctx, uri, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err != nil {
		return "", err
	}
	return createDatabase(ctx, uri, name)
}

// Exec runs the SQL of each of statements, in order, as uri's user on
// the database uri reaches.
func Exec(ctx context.Context, uri string, statements ...string) error {
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, sql := range statements {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}

// AsUser returns uri with user in place of its user, and no password.
func AsUser(uri, user string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	u.User = url.User(user)
	return u.String()
}

// createDatabase creates database name on the cluster uri reaches and
// returns uri with the new database in place of uri's.
func createDatabase(ctx context.Context, uri, name string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create database "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}
