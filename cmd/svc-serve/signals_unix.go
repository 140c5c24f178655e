//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/svc-dev/svc/server/reload"
)

// reloadOnSignals has SIGUSR1 reload the schema snapshot and SIGUSR2 the
// configuration, as PostgREST's signals do, through q (so a burst of
// signals is spaced out like one of notifications), until ctx ends.
func reloadOnSignals(ctx context.Context, q *reload.Queue) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		defer signal.Stop(sigs)
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-sigs:
				if sig == syscall.SIGUSR2 {
					q.Config()
				} else {
					q.Schema()
				}
			}
		}
	}()
}
