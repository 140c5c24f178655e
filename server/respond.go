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
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/request"
)

const jsonType = "application/json; charset=utf-8"

// writeError sends err as the SVC error body with its status.
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	if errors.Is(err, dbexec.ErrClientGone) {
		log.Debug("request abandoned by the client")
		return
	}
	apierr.From(err).Write(w, log)
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
// response.status, which replaces status. Values that are neither, and
// headers HTTP cannot carry as set, are the database developer's error:
// 500 SVC111 and SVC112. The headers SVC sets
// after it go through setDefault, so that a function's value wins, as in
// PostgREST.
func applyResponseSettings(h http.Header, res *dbexec.Result, status int) (int, error) {
	if res.Headers != nil {
		var list []map[string]string
		if err := json.Unmarshal([]byte(*res.Headers), &list); err != nil {
			return 0, apierr.InvalidResponseHeaders()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, apierr.InvalidResponseHeaders()
			}
			for k, v := range m {
				if reason := apierr.HeaderFieldError(k, v); reason != "" {
					return 0, apierr.InvalidResponseHeader(k, reason)
				}
			}
		}
		// A name set here replaces SVC's own value of that header; set
		// twice (two Set-Cookie) it is sent twice.
		for _, m := range list {
			for k := range m {
				h.Del(k)
			}
		}
		for _, m := range list {
			for k, v := range m {
				h.Add(k, v)
			}
		}
	}
	if res.Status != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*res.Status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.InvalidResponseStatus()
		}
		status = n
	}
	return status, nil
}

// setDefault sets a header SVC decides unless a function already set it
// through response.headers. key is in canonical form.
func setDefault(h http.Header, key, value string) {
	if _, ok := h[key]; !ok {
		h[key] = []string{value}
	}
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
