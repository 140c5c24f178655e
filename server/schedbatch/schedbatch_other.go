//go:build !linux

package schedbatch

// Apply does nothing where there is no SCHED_BATCH.
func Apply() (Outcome, error) { return Unsupported, nil }
