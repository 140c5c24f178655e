package main

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"

	"github.com/svc-dev/svc/server/config"
)

// listen opens the socket cfg asks for: a Unix socket (stale socket files
// from a previous run are replaced; the mode is applied before serving),
// or TCP, with SO_REUSEPORT when server-reuseport is on so that a new
// process can bind the port while the old one drains.
func listen(ctx context.Context, cfg *config.Config) (net.Listener, error) {
	if path := cfg.ServerUnixSocket; path != "" {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			os.Remove(path)
		} else if err == nil {
			return nil, errors.New("server-unix-socket: " + path + " exists and is not a socket")
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			return nil, err
		}
		if err := os.Chmod(path, cfg.ServerUnixSocketMode); err != nil {
			ln.Close()
			return nil, err
		}
		return ln, nil
	}
	return listenTCP(ctx, cfg.ServerReuseport, cfg.ListenNetwork(), cfg.ListenAddr())
}

// listenTCP listens on addr, with SO_REUSEPORT when reuseport is set.
func listenTCP(ctx context.Context, reuseport bool, network, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	if reuseport {
		lc.Control = reusePort
	}
	return lc.Listen(ctx, network, addr)
}
