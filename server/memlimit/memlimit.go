// Package memlimit finds the memory limit a container (or a systemd
// unit) puts on the process, from its cgroup, so that svc-serve honours
// it without configuration: the Go runtime's soft limit is set below it
// (runtime/debug.SetMemoryLimit), and the memory bodies may hold at once
// is sized to it.
//
// Go reads no cgroup memory limit by itself: without this, a process
// whose live heap is small lets its heap grow to twice that between
// collections however close the container's limit is, and the kernel,
// not the runtime, decides what happens when it is reached.
package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// Limit is the memory the process's cgroup, or any cgroup above it, may
// use at most, in bytes; 0 when none is set or none can be read.
func Limit() int64 {
	return limitUnder("/proc/self/cgroup", "/sys/fs/cgroup")
}

// limitUnder reads the process's cgroup from cgroupFile and the limits
// from the cgroup file system mounted at root: version 2's memory.max of
// the cgroup and of each one above it (a limit applies to everything
// below), or version 1's memory.limit_in_bytes of the memory
// controller's cgroup.
func limitUnder(cgroupFile, root string) int64 {
	data, err := os.ReadFile(cgroupFile)
	if err != nil {
		return 0
	}
	var limit int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			limit = lowest(limit, v2Limit(root, parts[2]))
		case hasController(parts[1], "memory"):
			limit = lowest(limit, v1Limit(path.Join(root, "memory"), parts[2]))
		}
	}
	return limit
}

// v2Limit is the lowest memory.max from dir's cgroup up to the root. In a
// container the cgroup namespace makes its own cgroup "/", whose
// memory.max the container's limit is.
func v2Limit(root, dir string) int64 { return lowestUp(root, dir, "memory.max") }

// v1Limit is the lowest memory.limit_in_bytes from dir's cgroup up to the
// root of the memory controller's mount.
func v1Limit(mount, dir string) int64 { return lowestUp(mount, dir, "memory.limit_in_bytes") }

// lowestUp is the lowest limit in file from dir up to the root.
func lowestUp(root, dir, file string) int64 {
	var limit int64
	for d := path.Clean("/" + dir); ; d = path.Dir(d) {
		limit = lowest(limit, readLimit(path.Join(root, d, file)))
		if d == "/" {
			return limit
		}
	}
}

// unlimitedV1 is the least of the values cgroup v1 reports for no limit
// (the largest page-aligned int64); anything at or past it means none.
const unlimitedV1 = 1 << 62

// readLimit reads a limit file: a number of bytes, or "max" (version 2)
// or a huge number (version 1) for none, which is 0.
func readLimit(file string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 || n >= unlimitedV1 {
		return 0
	}
	return n
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// lowest is the lower of two limits, 0 standing for none.
func lowest(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// Share is the part of a limit the Go runtime's soft limit is set to:
// the rest is for what the runtime does not count (the binary, thread
// stacks outside the heap, the kernel's socket buffers charged to the
// cgroup) and for the runtime to reach its limit without the kernel's.
const Share = 0.85

// Apply sets the Go runtime's soft memory limit to Share of limit,
// unless the GOMEMLIMIT environment variable has set one (the operator
// has chosen) or limit is 0. It returns the soft limit set, 0 for none.
func Apply(limit int64) int64 {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || limit <= 0 {
		return 0
	}
	soft := int64(float64(limit) * Share)
	debug.SetMemoryLimit(soft)
	return soft
}
