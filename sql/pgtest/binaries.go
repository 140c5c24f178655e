package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// FindBinDir locates the PostgreSQL server binaries: $SVC_PG_BIN, then
// `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin. Debian's
// pg_config often points at the client-only /usr/bin, so each candidate must
// hold both initdb and postgres.
func FindBinDir() (string, error) {
	var candidates []string
	if dir := os.Getenv("SVC_PG_BIN"); dir != "" {
		candidates = append(candidates, dir)
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(versioned, func(i, j int) bool { return pgMajor(versioned[i]) > pgMajor(versioned[j]) })
	candidates = append(candidates, versioned...)
	for _, dir := range candidates {
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", errors.New("PostgreSQL server binaries (initdb, postgres) not found: install them " +
		"(Debian: apt-get install postgresql-15) or set SVC_PG_BIN to their directory")
}

// pgMajor extracts 15 from /usr/lib/postgresql/15/bin for ordering.
func pgMajor(binDir string) int {
	var n int
	fmt.Sscanf(filepath.Base(filepath.Dir(binDir)), "%d", &n)
	return n
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}
