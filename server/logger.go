package server

import (
	"io"
	"log/slog"
)

// NewLogger returns the logger svc-serve writes with: PostgREST's level
// names (crit, error, warn, info, debug; anything else is error, the
// default) mapped onto slog's, in log-format text (key=value pairs) or
// json (one object per line, for log collectors).
func NewLogger(w io.Writer, level, format string) *slog.Logger {
	l := slog.LevelError
	switch level {
	case "crit":
		l = slog.LevelError + 4
	case "warn":
		l = slog.LevelWarn
	case "info":
		l = slog.LevelInfo
	case "debug":
		l = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
