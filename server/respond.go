package server

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
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
		attrs := []any{"code", e.Code, "status", e.Status, "message", e.Message}
		if e.Cause != nil {
			attrs = append(attrs, "cause", e.Cause.Error())
		}
		log.Error("request failed", attrs...)
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

// applyResponseSettings applies what functions in the statement set with
// set_config: response.headers, a JSON array of one-key objects, and
// response.status, which replaces status. Values that are neither are the
// database developer's error: 500 SVC111 and SVC112.
func applyResponseSettings(h http.Header, res *result, status int) (int, error) {
	if res.headers != nil {
		var list []map[string]string
		if err := json.Unmarshal([]byte(*res.headers), &list); err != nil {
			return 0, apierr.InvalidResponseHeaders()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, apierr.InvalidResponseHeaders()
			}
			for k, v := range m {
				h.Set(k, v)
			}
		}
	}
	if res.status != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*res.status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.InvalidResponseStatus()
		}
		status = n
	}
	return status, nil
}

// setContentType sets the response's Content-Type for media m. A media
// handler's function may have named its own in response.headers (a `*/*`
// handler answering what the client asked for): that one stays.
func setContentType(h http.Header, m request.Media) {
	if m.Kind == request.MediaHandler && h.Get("Content-Type") != "" {
		return
	}
	h.Set("Content-Type", m.ContentType())
}

// handlerBody returns the bytes of a media handler's body: PostgreSQL
// sends a value that is not text hex-encoded (request.Media.Binary), and
// it is decoded in place.
func handlerBody(m request.Media, body []byte) ([]byte, error) {
	if !m.Binary || body == nil {
		return body, nil
	}
	n, err := hex.Decode(body, body)
	if err != nil {
		return nil, fmt.Errorf("decode a media handler's body: %w", err)
	}
	return body[:n], nil
}
