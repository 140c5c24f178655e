package reload

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// newSource loads a new, empty snapshot each time, or fails with err.
type newSource struct{ err error }

func (s *newSource) Load(context.Context) (*snapshot.Snapshot, error) {
	if s.err != nil {
		return nil, s.err
	}
	return snapshot.New(snapshot.Header{}, snapshot.Content{})
}

func (s *newSource) Describe() string { return "test source" }

// TestOnSwap: every listener is told of each snapshot put in force, until
// it stops listening; a reload that fails puts none in force and tells
// none.
func TestOnSwap(t *testing.T) {
	t.Parallel()
	src := &newSource{}
	snaps := NewSnapshots(src, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var first, second []*snapshot.Snapshot
	stopFirst := snaps.OnSwap(func(s *snapshot.Snapshot) { first = append(first, s) })
	snaps.OnSwap(func(s *snapshot.Snapshot) { second = append(second, s) })
	ctx := context.Background()
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || len(second) != 1 || first[0] != snaps.Current() || second[0] != snaps.Current() {
		t.Fatalf("after a reload: told %v and %v; want the snapshot in force, once each", first, second)
	}
	stopFirst()
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || len(second) != 2 || second[1] != snaps.Current() {
		t.Errorf("after stopping the first: told %d and %d times; want 1 and 2", len(first), len(second))
	}
	src.err = errors.New("gone")
	if snaps.Reload(ctx) == nil {
		t.Fatal("the failing source loaded")
	}
	if len(second) != 2 {
		t.Errorf("a failed reload told the listener")
	}
}
