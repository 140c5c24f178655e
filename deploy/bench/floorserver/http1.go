package main

import (
	"io"
	"log"
	"net"
	"net/http"

	"github.com/svc-dev/svc/server/http1"
)

// serveHTTP1 answers the requests of ln as serve does, through SVC's HTTP
// server and a plain http.Handler: what it costs beyond serve is the
// least any handler on that server pays, before it does anything of its
// own.
func serveHTTP1(ln net.Listener, kinds map[string]*workload, run runner) error {
	srv := &http1.Server{Handler: floorHandler(kinds, run)}
	return srv.Serve(ln)
}

// floorHandler is serve's work as an http.Handler: the answer serve
// writes, its headers set through the ResponseWriter, and none where serve
// closes the connection.
func floorHandler(kinds map[string]*workload, run runner) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			return
		}
		kind, args := route(kinds, r.Method, r.URL, body)
		if kind == nil {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusNotFound)
			return
		}
		answer, failed, err := run(kind, args)
		if err != nil {
			log.Fatal(err) // as serve: a lost session skews what follows
		}
		if failed != nil {
			// As serve: logged, and the connection closed unanswered.
			log.Print(failed)
			panic(http.ErrAbortHandler)
		}
		if kind.params[0] == "body" {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusCreated)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(answer)
	})
}
