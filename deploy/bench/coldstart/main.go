// Command coldstart times a server's cold start: from starting its process
// to the first 200 answer to a URL, polled every millisecond, over several
// runs. It prints each run and the median, in milliseconds:
//
//	coldstart -url http://127.0.0.1:3000/t1?limit=1 -runs 5 -log svc.log -- svc-serve
//
// The server inherits the environment; its output is appended to -log. Each
// run ends the server with SIGTERM and waits for it before the next starts.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

func main() {
	url := flag.String("url", "", "URL that answers 200 once the server is ready")
	runs := flag.Int("runs", 5, "number of starts")
	logPath := flag.String("log", os.DevNull, "file the server's output is appended to")
	timeout := flag.Duration("timeout", 30*time.Second, "give up on a start after this long")
	flag.Parse()
	if *url == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: coldstart -url URL [-runs N] [-log FILE] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	logFile, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fail(err)
	}
	defer logFile.Close()

	var times []time.Duration
	for i := range *runs {
		d, err := startOnce(flag.Args(), *url, logFile, *timeout)
		if err != nil {
			fail(fmt.Errorf("run %d: %w", i+1, err))
		}
		times = append(times, d)
		fmt.Printf("run %d: %.1f ms\n", i+1, ms(d))
	}
	slices.Sort(times)
	fmt.Printf("median of %d: %.1f ms\n", len(times), ms(times[len(times)/2]))
}

// startOnce starts the command, polls url until it answers 200, and stops
// the command again. The poll uses a new connection each time, so a
// refused connection (not listening yet) costs microseconds, not a timeout.
func startOnce(args []string, url string, log io.Writer, timeout time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	gone := false // the server exited by itself; nothing to stop
	defer func() {
		if gone {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	for time.Since(start) < timeout {
		select {
		case err := <-exited:
			gone = true
			return 0, fmt.Errorf("server exited before answering: %v", err)
		default:
		}
		if resp, err := client.Get(url); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("no 200 from %s within %s", url, timeout)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coldstart:", err)
	os.Exit(1)
}
