package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// write creates file under dir with content, and its directories.
func write(t *testing.T, dir, file, content string) {
	t.Helper()
	p := filepath.Join(dir, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLimitUnder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cgroup string
		files  map[string]string
		want   int64
	}{
		{"v2 container", "0::/\n", map[string]string{"memory.max": "536870912\n"}, 512 << 20},
		{"v2 none", "0::/\n", map[string]string{"memory.max": "max\n"}, 0},
		{"v2 unit below a slice's limit", "0::/system.slice/svc.service\n", map[string]string{
			"memory.max":                              "max\n",
			"system.slice/memory.max":                 "1073741824\n",
			"system.slice/svc.service/memory.max":     "max\n",
			"system.slice/svc.service/memory.current": "1000\n",
		}, 1 << 30},
		{"v2 the lower of two", "0::/a/b\n", map[string]string{
			"a/memory.max": "2147483648", "a/b/memory.max": "268435456",
		}, 256 << 20},
		{"v1 container", "12:memory:/\n11:cpu,cpuacct:/\n", map[string]string{
			"memory/memory.limit_in_bytes": "268435456\n",
		}, 256 << 20},
		{"v1 below a parent's limit", "4:memory:/process_api/abc\n", map[string]string{
			"memory/memory.limit_in_bytes":                 "9223372036854771712\n",
			"memory/process_api/memory.limit_in_bytes":     "402653184\n",
			"memory/process_api/abc/memory.limit_in_bytes": "9223372036854771712\n",
		}, 384 << 20},
		{"v1 none", "4:memory:/docker/abc\n", map[string]string{
			"memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, 0},
		{"no cgroup file system", "0::/\n", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "cgroup", tc.cgroup)
			root := filepath.Join(dir, "fs")
			for f, c := range tc.files {
				write(t, root, f, c)
			}
			if got := limitUnder(filepath.Join(dir, "cgroup"), root); got != tc.want {
				t.Errorf("limit %d, want %d", got, tc.want)
			}
		})
	}
}
