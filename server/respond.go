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
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

const jsonType = "application/json; charset=utf-8"

// writeError sends err as the SVC error body with its status, its code
// written under names.
func writeError(w http.ResponseWriter, names apierr.Naming, log *slog.Logger, err error) {
	if errors.Is(err, dbexec.ErrClientGone) {
		log.Debug("request abandoned by the client")
		return
	}
	apierr.From(err).Write(w, names, log)
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

// writeBody sends a body PostgreSQL built, after the CSV header line head
// (see csvHead) when there is one. head may be shared, so it is never
// written to: an empty body takes it without its newline.
func writeBody(w http.ResponseWriter, status int, head, body []byte) {
	if len(head) > 0 && len(body) == 0 {
		head = head[:len(head)-1]
	}
	// With the length known, the server sends the body as is rather than
	// chunked; it gathers the two writes into one.
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(body)))
	w.WriteHeader(status)
	w.Write(head)
	w.Write(body)
}

// preferenceApplied renders the Preference-Applied header in PostgREST's
// fixed order; "" when nothing was applied.
func preferenceApplied(pr request.Preferences, h appliedPrefs) string {
	var out []string
	add := func(ok bool, name, value string) {
		if ok && value != "" {
			out = append(out, name+"="+value)
		}
	}
	w := h.write
	add(w != nil && w.Kind == plan.Insert && w.Upsert(), "resolution", pr.Resolution)
	add(w != nil && w.Kind != plan.Delete, "missing", pr.Missing)
	add(w != nil, "return", pr.Return)
	add(true, "params", pr.Params)
	add(true, "count", pr.Count)
	add(h.tx, "tx", pr.Tx)
	add(true, "handling", pr.Handling)
	add(h.timezone, "timezone", pr.Timezone)
	if pr.MaxAffected != nil && pr.Handling == "strict" && w != nil && (w.Kind == plan.Update || w.Kind == plan.Delete) {
		out = append(out, "max-affected="+strconv.FormatInt(*pr.MaxAffected, 10))
	}
	return strings.Join(out, ", ")
}
