package apierr_test

import (
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/logging"
)

// TestTraceLevelIsNotice: the once-a-kind line about another naming's
// traces is logged at notice level, which every log-level shows; apierr
// cannot import logging for the constant, so the two are compared here.
func TestTraceLevelIsNotice(t *testing.T) {
	if apierr.TraceLevel != logging.LevelNotice {
		t.Errorf("TraceLevel %v, want logging.LevelNotice %v", apierr.TraceLevel, logging.LevelNotice)
	}
}
