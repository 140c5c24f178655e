package config

import "fmt"

// removedKeys are SVC's own keys that later versions dropped, with what
// replaced each. A file or environment written for an earlier version
// still starts the server: the key is ignored with a warning that says so,
// rather than with the unknown-key warning, whose closest-name suggestion
// would point at an unrelated key.
var removedKeys = map[string]string{
	"server-http":        "SVC always serves HTTP with its own server, which answers as net/http's does",
	"server-raw-sockets": "raw socket calls cost SVC throughput once it is busy, so SVC no longer makes them (deploy/bench/RESULTS.md)",
	"server-sched-batch": "run svc-serve under SCHED_BATCH with systemd's CPUSchedulingPolicy=batch or chrt --batch (docs/operations.md, \"Machine resources\")",
}

// removedByEnv maps the environment suffix of each removed key to it.
var removedByEnv = func() map[string]string {
	m := make(map[string]string, len(removedKeys))
	for name := range removedKeys {
		m[envSuffix(name)] = name
	}
	return m
}()

// warnRemoved warns that name, a removed key set at src, is ignored; at is
// what the user has to change (the key, or the environment variable).
func (l *loader) warnRemoved(at, name, src string) {
	l.warn(at, src, fmt.Sprintf("configuration key %q was removed and is ignored (%s): %s", name, src, removedKeys[name]))
}
