// Command synthschema prints the synthetic schema the catalog benchmarks
// use (catalog.SyntheticSchemaSQL), so run.sh can load the same schema into
// its own cluster and time svc-serve starting from its snapshot.
//
//	go run ./deploy/bench/synthschema -tables 2000 -views 500 -functions 500 | psql ...
//
// The script is one statement per ";\n"; run it with autocommit (psql's
// default), as one transaction would need a lock per created object.
package main

import (
	"flag"
	"fmt"

	"github.com/svc-dev/svc/sql/catalog"
)

func main() {
	tables := flag.Int("tables", 2000, "tables in schema synth")
	views := flag.Int("views", 500, "views")
	functions := flag.Int("functions", 500, "functions")
	flag.Parse()
	fmt.Print(catalog.SyntheticSchemaSQL(*tables, *views, *functions))
}
