//go:build !unix

package main

import (
	"context"

	"github.com/svc-dev/svc/server/reload"
)

// reloadOnSignals does nothing where there are no SIGUSR1 and SIGUSR2:
// reloads are asked for by notification only.
func reloadOnSignals(context.Context, *reload.Queue) {}
