package server

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/svc-dev/svc/server/apierr"
)

const jsonType = "application/json; charset=utf-8"

// writeError sends err as the SVC error body with its status.
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	if errors.Is(err, errClientGone) {
		log.Debug("request abandoned by the client")
		return
	}
	e := apierr.From(err)
	if e.Status >= 500 {
		log.Error("request failed", "code", e.Code, "status", e.Status, "message", e.Message)
	}
	h := w.Header()
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", jsonType)
	w.WriteHeader(e.Status)
	w.Write(e.JSON())
}

// contentRange renders `first-last/total` for a page of n rows starting at
// offset; total is "*" when not counted, and the range is "*" for an empty
// page or a zero total.
func contentRange(offset, n int64, total *int64) string {
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	if n == 0 || (total != nil && *total == 0) {
		return "*/" + t
	}
	return strconv.FormatInt(offset, 10) + "-" + strconv.FormatInt(offset+n-1, 10) + "/" + t
}
