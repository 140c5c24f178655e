// Package logging builds svc-serve's logger: PostgREST's level names, SVC's own
// levels (crit, and notice for what the server says about its own life),
// text or JSON lines.
package logging

import (
	"io"
	"log/slog"
)

// Levels beyond slog's. PostgREST's crit sits above error. LevelNotice is
// what svc-serve says about its own life (starting, listening, connecting
// to the database, the snapshot it serves, reloads): PostgREST prints that
// at every log-level, so it sits above crit, and an operator who has set
// nothing sees what the server is doing.
const (
	LevelCrit   = slog.LevelError + 4
	LevelNotice = slog.LevelError + 8
)

// NewLogger returns the logger svc-serve writes with: PostgREST's level
// names (crit, error, warn, info, debug; anything else is error, the
// default) mapped onto slog's, in log-format text (key=value pairs) or
// json (one object per line, for log collectors). Records at LevelNotice
// are written at every level.
func NewLogger(w io.Writer, level, format string) *slog.Logger {
	l := slog.LevelError
	switch level {
	case "crit":
		l = LevelCrit
	case "warn":
		l = slog.LevelWarn
	case "info":
		l = slog.LevelInfo
	case "debug":
		l = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: l, ReplaceAttr: levelNames}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// levelNames writes SVC's own levels by name rather than as ERROR+n.
func levelNames(groups []string, a slog.Attr) slog.Attr {
	if a.Key != slog.LevelKey || len(groups) > 0 {
		return a
	}
	switch a.Value.Any() {
	case LevelCrit:
		a.Value = slog.StringValue("CRIT")
	case LevelNotice:
		a.Value = slog.StringValue("NOTICE")
	}
	return a
}
