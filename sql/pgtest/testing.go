package pgtest

import (
	"context"
	"fmt"
	"os"
)

// ExistingURIEnv names the variable that points tests at an existing
// database instead of a throwaway cluster.
const ExistingURIEnv = "SVC_TEST_DB_URI"

// Runner is what TestMain's *testing.M offers; taking the interface keeps
// the testing package out of binaries that use pgtest (svc-serve demo).
type Runner interface{ Run() int }

// Main runs a package's tests with one shared cluster (or the database in
// $SVC_TEST_DB_URI) and stops it afterwards; call it from TestMain as
// os.Exit(pgtest.Main(m, setup)). setup receives the URI and loads fixtures.
func Main(m Runner, setup func(uri string) error) int {
	uri := os.Getenv(ExistingURIEnv)
	if uri == "" {
		c, err := Start(context.Background(), Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			return 1
		}
		defer c.Stop()
		uri = c.URI
	}
	if setup != nil {
		if err := setup(uri); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest setup:", err)
			return 1
		}
	}
	return m.Run()
}
