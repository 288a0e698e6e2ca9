package baseline

import "testing"

func TestPackageTree(t *testing.T) {
	for in, want := range map[string]string{
		"{repo}/suites/node_modules/zod/v4/index.js":                  "{repo}/suites/node_modules",
		"/usr/lib/python3/dist-packages/yaml/__init__.py":             "/usr/lib/python3/dist-packages",
		"/opt/venv/lib/python3.11/site-packages/x/node_modules/y.js":  "/opt/venv/lib/python3.11/site-packages",
		"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "/sys/fs/cgroup",
		"{workspace}/src/app.py":                                      "",
		"/usr/lib/node_modulesx/y":                                    "",
	} {
		got, ok := packageTree(in)
		if ok != (want != "") || got != want {
			t.Errorf("packageTree(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
