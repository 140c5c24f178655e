package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// PostgREST's level names choose what is written; notice is written at
// every level, and SVC's own levels are written by name.
func TestLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level string
		wrote []string // of debug, info, warn, error, crit, notice
	}{
		{"debug", []string{"DEBUG", "INFO", "WARN", "ERROR", "CRIT", "NOTICE"}},
		{"info", []string{"INFO", "WARN", "ERROR", "CRIT", "NOTICE"}},
		{"warn", []string{"WARN", "ERROR", "CRIT", "NOTICE"}},
		{"error", []string{"ERROR", "CRIT", "NOTICE"}},
		{"crit", []string{"CRIT", "NOTICE"}},
		{"nonsense", []string{"ERROR", "CRIT", "NOTICE"}},
	} {
		var buf bytes.Buffer
		log := NewLogger(&buf, tc.level, "json")
		for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, LevelCrit, LevelNotice} {
			log.Log(context.Background(), l, "m")
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec struct{ Level string }
			if line != "" && json.Unmarshal([]byte(line), &rec) == nil {
				got = append(got, rec.Level)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.wrote, ",") {
			t.Errorf("log-level %s wrote %v, want %v", tc.level, got, tc.wrote)
		}
	}
}
