// Command refgen rewrites the generated sections of the configuration
// reference (docs/configuration.md) from the key table in
// server/config/keys.go. Run it with `go generate ./server/config`; a test
// in server/config fails while the doc and the table differ.
package main

import (
	"fmt"
	"os"

	"github.com/svc-dev/svc/server/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: refgen docs/configuration.md")
		os.Exit(2)
	}
	path := os.Args[1]
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "refgen:", err)
		os.Exit(1)
	}
	doc, err := config.FillReference(string(data))
	if err != nil {
		fmt.Fprintf(os.Stderr, "refgen: %s: %v\n", path, err)
		os.Exit(1)
	}
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "refgen:", err)
		os.Exit(1)
	}
}
