// Command coldstart times a server's cold start: from starting its process
// to the first 200 answer to a URL, polled every millisecond, over several
// runs. It prints each run and the median, in milliseconds, with the
// server's resident memory at that first answer and its peak until then
// (Linux's VmRSS and VmHWM): what a fresh server needs to serve, its loaded
// snapshot included:
//
//	coldstart -url http://127.0.0.1:3000/t1?limit=1 -runs 5 -log svc.log -- svc-serve
//
// The server inherits the environment; its output is appended to -log. Each
// run ends the server with SIGTERM and waits for it before the next starts.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	var rss, peak []int
	for i := range *runs {
		st, err := startOnce(flag.Args(), *url, logFile, *timeout)
		if err != nil {
			fail(fmt.Errorf("run %d: %w", i+1, err))
		}
		times = append(times, st.took)
		rss, peak = append(rss, st.rssKiB), append(peak, st.peakKiB)
		fmt.Printf("run %d: %.1f ms, RSS %s (peak %s)\n", i+1, ms(st.took), mib(st.rssKiB), mib(st.peakKiB))
	}
	fmt.Printf("median of %d: %.1f ms, RSS %s (peak %s)\n", len(times), ms(median(times)), mib(median(rss)), mib(median(peak)))
}

// coldStart is what one start measured: the time to the first 200, and the
// server's resident and peak resident memory in KiB at that moment (-1
// where /proc could not tell).
type coldStart struct {
	took            time.Duration
	rssKiB, peakKiB int
}

// startOnce starts the command, polls url until it answers 200, and stops
// the command again. The poll uses a new connection each time, so a
// refused connection (not listening yet) costs microseconds, not a timeout.
func startOnce(args []string, url string, log io.Writer, timeout time.Duration) (coldStart, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return coldStart{}, err
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
	for time.Since(began) < timeout {
		select {
		case err := <-exited:
			gone = true
			return coldStart{}, fmt.Errorf("server exited before answering: %v", err)
		default:
		}
		if resp, err := client.Get(url); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				st := coldStart{took: time.Since(began)}
				st.rssKiB, st.peakKiB = memory(cmd.Process.Pid)
				return st, nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return coldStart{}, fmt.Errorf("no 200 from %s within %s", url, timeout)
}

// memory reads a process's resident set and its peak, in KiB, from
// /proc/PID/status; -1 for a figure it cannot read.
func memory(pid int) (rssKiB, peakKiB int) {
	rssKiB, peakKiB = -1, -1
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rssKiB, peakKiB
	}
	for line := range strings.Lines(string(status)) {
		name, value, _ := strings.Cut(line, ":")
		var kib int
		if _, err := fmt.Sscanf(value, "%d kB", &kib); err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			rssKiB = kib
		case "VmHWM":
			peakKiB = kib
		}
	}
	return rssKiB, peakKiB
}

func median[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func mib(kib int) string {
	if kib < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coldstart:", err)
	os.Exit(1)
}
