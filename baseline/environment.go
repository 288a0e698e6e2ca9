package baseline

import (
	"fmt"
	"slices"
	"strings"
)

// Environment is the fingerprint of where syscalls were recorded, for one
// arch: the parts of a machine that change what a well-behaved agent
// calls without its code changing. A runner image update moves libc and
// the interpreters; the report then says so instead of leaving a reviewer
// to guess (CompareEnvironments).
//
// Each part is a set: a baseline recorded on two kernels, or merged from
// shards on two images, lists both, and a run on either matches.
type Environment struct {
	Kernel []string `json:"kernel,omitempty"` // the release's version, "6.18" (KernelVersion)
	OS     []string `json:"os,omitempty"`     // /etc/os-release ID and VERSION_ID, "debian 12"
	Libc   []string `json:"libc,omitempty"`   // name and version, "glibc 2.36"; "musl" when its version cannot be read
	// Runtimes are the interpreters and runtimes the agent's processes ran,
	// sorted by name, version and path.
	Runtimes []Runtime `json:"runtimes,omitempty"`
	// Variables are the agent's environment variables that change what
	// its runtime touches (RuntimeVariables), as "NAME=VALUE", sorted:
	// PYTHONDONTWRITEBYTECODE=1 is a run that writes no .pyc files, an
	// unset one writes them into the workspace. nil: not recorded (an
	// older baseline), never compared; empty: none was set.
	Variables []string `json:"variables,omitempty"`
}

// RuntimeVariables are the variables an environment fingerprints, each
// for what it changes in the files, modules and calls of a run:
//   - the dynamic loader's preloads and library path (LD_PRELOAD,
//     LD_LIBRARY_PATH): other libraries in every process;
//   - CPython's bytecode cache (PYTHONDONTWRITEBYTECODE,
//     PYTHONPYCACHEPREFIX: whether and where .pyc files are written),
//     import path (PYTHONPATH, PYTHONHOME, PYTHONSAFEPATH) and user site
//     (PYTHONNOUSERSITE, PYTHONUSERBASE);
//   - Node's options (NODE_OPTIONS: --require preloads, flags), module
//     path (NODE_PATH), extra CA file (NODE_EXTRA_CA_CERTS, read at
//     start) and compile cache (NODE_COMPILE_CACHE, written);
//   - the CA files and directories TLS libraries read (SSL_CERT_FILE,
//     SSL_CERT_DIR, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE).
//
// $HOME and $TMPDIR are placeholders ({home}, {tmp}) instead: their
// values move the same files elsewhere.
var RuntimeVariables = []string{
	"CURL_CA_BUNDLE", "LD_LIBRARY_PATH", "LD_PRELOAD",
	"NODE_COMPILE_CACHE", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "NODE_PATH",
	"PYTHONDONTWRITEBYTECODE", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONPATH", "PYTHONPYCACHEPREFIX", "PYTHONSAFEPATH", "PYTHONUSERBASE",
	"REQUESTS_CA_BUNDLE", "SSL_CERT_DIR", "SSL_CERT_FILE",
}

// VariablesOf are env's RuntimeVariables that are set (the last value of
// each), as Environment.Variables holds them: never nil.
func VariablesOf(env []string) []string {
	out := []string{}
	for _, name := range RuntimeVariables {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				out = append(out, name+"="+v)
				break
			}
		}
	}
	return out
}

// Runtime is one interpreter or runtime an agent ran.
type Runtime struct {
	Name    string `json:"name"`    // "python", "node", "go"
	Version string `json:"version"` // "3.11.7", "20.19.2", "1.26.8"; "" when it could not be read
	// Path is the executable, symlinks resolved; "" for a runtime
	// compiled into the agent (Go), where where it lies says nothing.
	Path string `json:"path,omitempty"`
}

// String is the baseline file's form: "python 3.11.7 /usr/bin/python3.11".
func (r Runtime) String() string {
	v := r.Version
	if v == "" {
		v = "unknown"
	}
	if r.Path == "" {
		return r.Name + " " + v
	}
	return r.Name + " " + v + " " + r.Path
}

// ParseRuntime reads Runtime.String's form back.
func ParseRuntime(s string) (Runtime, error) {
	// NAME VERSION, then the path as the rest (a path may hold spaces).
	f := strings.SplitN(strings.TrimSpace(s), " ", 3)
	if len(f) == 2 {
		f = append(f, "")
	}
	if len(f) != 3 || (f[2] != "" && !strings.HasPrefix(f[2], "/") && !strings.HasPrefix(f[2], phHome+"/") && !strings.HasPrefix(f[2], phWorkspace+"/")) {
		return Runtime{}, fmt.Errorf("runtime %q: want \"NAME VERSION /PATH\", e.g. \"python 3.11.7 /usr/bin/python3.11\" or \"python 3.11.7 {home}/.pyenv/versions/3.11.7/bin/python3.11\" (or \"go 1.26.8\" for a runtime compiled into the agent)", s)
	}
	r := Runtime{Name: f[0], Version: f[1], Path: f[2]}
	if r.Version == "unknown" {
		r.Version = ""
	}
	return r, nil
}

// Abstract returns e with each runtime's path written from the
// placeholder ({workspace} or {home}) that holds it, as files entries
// are: "{home}/.pyenv/versions/3.11.7/bin/python3.11" is the same
// interpreter on a machine whose home is /home/runner, where root's
// /root/... would be drift on every other machine. Paths elsewhere
// (/usr/bin/python3.11, /opt/...) are the same on machines of one image
// and stay as they are.
func (e Environment) Abstract(ctx FileContext) Environment {
	places := FileContext{Workspace: ctx.Workspace, Home: ctx.Home}
	out := e.Clone()
	for i, r := range out.Runtimes {
		out.Runtimes[i].Path = places.Abstract(r.Path)
	}
	for i, v := range out.Variables {
		name, value, _ := strings.Cut(v, "=")
		parts := strings.Split(value, ":")
		for j, p := range parts {
			if strings.HasPrefix(p, "/") {
				parts[j] = places.Abstract(p)
			}
		}
		out.Variables[i] = name + "=" + strings.Join(parts, ":")
	}
	out.normalize()
	return out
}

// IsZero reports whether nothing is known.
func (e Environment) IsZero() bool {
	return len(e.Kernel)+len(e.OS)+len(e.Libc)+len(e.Runtimes) == 0 && e.Variables == nil
}

// Merge adds other's values: the result matches a run in either.
func (e *Environment) Merge(other Environment) {
	e.Kernel = unionStrings(e.Kernel, other.Kernel)
	e.OS = unionStrings(e.OS, other.OS)
	e.Libc = unionStrings(e.Libc, other.Libc)
	for _, r := range other.Runtimes {
		if !slices.Contains(e.Runtimes, r) {
			e.Runtimes = append(e.Runtimes, r)
		}
	}
	if other.Variables != nil {
		e.Variables = append(slices.Clip(e.Variables), other.Variables...)
		if e.Variables == nil {
			e.Variables = []string{}
		}
	}
	e.normalize()
}

// Clone returns a deep copy.
func (e Environment) Clone() Environment {
	return Environment{Kernel: slices.Clone(e.Kernel), OS: slices.Clone(e.OS), Libc: slices.Clone(e.Libc), Runtimes: slices.Clone(e.Runtimes),
		Variables: slices.Clone(e.Variables)}
}

func (e *Environment) normalize() {
	e.Kernel = kernelVersions(e.Kernel)
	for _, list := range []*[]string{&e.OS, &e.Libc} {
		*list = unionStrings(nil, *list)
	}
	slices.SortFunc(e.Runtimes, func(a, b Runtime) int {
		return strings.Compare(a.Name+"\x00"+a.Version+"\x00"+a.Path, b.Name+"\x00"+b.Version+"\x00"+b.Path)
	})
	e.Runtimes = slices.Compact(e.Runtimes)
	if e.Variables != nil {
		e.Variables = append([]string{}, unionStrings(nil, e.Variables)...)
	}
}

func unionStrings(a, b []string) []string {
	var out []string
	for _, s := range append(slices.Clone(a), b...) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// KernelVersion is what of a kernel release a baseline keeps and
// compares: its major.minor, "6.18" of "6.18.44-fc-v657",
// "6.18.0-1-amd64" or "6.18-rc3". New syscalls, and new flags that make
// a library take another path, come with a mainline release; stable
// updates (the patch level) take fixes only, and the rest is a
// distribution's or a cloud's build name, which differs from machine to
// machine of one kind and would be drift on every new runner. A release
// without a major.minor is kept whole.
func KernelVersion(release string) string {
	if v := versionPrefix(release, 2); v != "" {
		return v
	}
	return release
}

func kernelVersions(releases []string) []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = KernelVersion(r)
	}
	return unionStrings(nil, out)
}

// EnvChange is one part of the environment that differs from the
// recorded one: Part "kernel", "os", "libc" or a runtime's name.
type EnvChange struct {
	Part string `json:"part"`
	Was  string `json:"was"` // the recorded values, ", "-joined; "" for a runtime not recorded
	Now  string `json:"now"`
}

// String reads "glibc 2.36 → 2.39", "python 3.11.7 → 3.12.3",
// "python 3.11.7 (/root/.pyenv/...) → 3.11.7 (/usr/bin/python3.11)",
// "os debian 12 → ubuntu 24.04", "node (not recorded) → 22.1.0".
func (c EnvChange) String() string {
	if c.Part == "env" {
		return c.Was + " → " + c.Now // "PYTHONDONTWRITEBYTECODE=1 → PYTHONDONTWRITEBYTECODE unset"
	}
	if c.Was == "" {
		return c.Part + " (not recorded) → " + c.Now
	}
	if c.Part == "libc" {
		wn, wv, _ := strings.Cut(c.Was, " ")
		nn, nv, _ := strings.Cut(c.Now, " ")
		if wn == nn && !strings.Contains(c.Was, ",") {
			return wn + " " + wv + " → " + nv
		}
	}
	return c.Part + " " + c.Was + " → " + c.Now
}

// CompareEnvironments lists what of now is not in recorded. A part now
// does not know (empty) is not a change; a runtime recorded but not run
// now is not one either (a check run sees only what ran). Runtimes are
// compared by name: a version or path not recorded is a change; then the
// variables (compareVariables).
func CompareEnvironments(recorded, now Environment) []EnvChange {
	var out []EnvChange
	scalar := func(part string, was, is []string) {
		for _, v := range is {
			if !slices.Contains(was, v) && len(was) > 0 {
				out = append(out, EnvChange{Part: part, Was: strings.Join(was, ", "), Now: v})
			}
		}
	}
	scalar("kernel", kernelVersions(recorded.Kernel), kernelVersions(now.Kernel))
	scalar("os", recorded.OS, now.OS)
	scalar("libc", recorded.Libc, now.Libc)
	for _, r := range now.Runtimes {
		var same []Runtime
		for _, have := range recorded.Runtimes {
			if have.Name == r.Name {
				same = append(same, have)
			}
		}
		if slices.Contains(same, r) {
			continue
		}
		c := EnvChange{Part: r.Name, Now: runtimeWord(r, same)}
		var was []string
		for _, have := range same {
			was = append(was, runtimeWord(have, []Runtime{r}))
		}
		c.Was = strings.Join(was, ", ")
		out = append(out, c)
	}
	return append(out, compareVariables(recorded.Variables, now.Variables)...)
}

// compareVariables lists each variable whose value differs: Part "env",
// Was and Now "NAME=VALUE" or "NAME unset". A baseline that merged
// several environments holds several values of one name; a run with any
// of them matches. Nothing is compared where either side was not
// recorded (nil).
func compareVariables(recorded, now []string) []EnvChange {
	if recorded == nil || now == nil {
		return nil
	}
	values := func(list []string) map[string][]string {
		m := map[string][]string{}
		for _, v := range list {
			name, _, _ := strings.Cut(v, "=")
			m[name] = append(m[name], v)
		}
		return m
	}
	was, is := values(recorded), values(now)
	var out []EnvChange
	for _, name := range RuntimeVariables {
		w, n := was[name], is[name]
		if len(w) == 0 && len(n) == 0 {
			continue
		}
		if len(n) == 0 {
			n = []string{name + " unset"}
		}
		if len(w) == 0 {
			w = []string{name + " unset"}
		}
		if !slices.Contains(w, n[0]) {
			out = append(out, EnvChange{Part: "env", Was: strings.Join(w, ", "), Now: n[0]})
		}
	}
	return out
}

// runtimeWord is a runtime's version, with its path when one of others
// has the same version (then the path is what changed).
func runtimeWord(r Runtime, others []Runtime) string {
	v := r.Version
	if v == "" {
		v = "unknown version"
	}
	for _, o := range others {
		if o.Version == r.Version && o.Path != r.Path {
			return v + " (" + r.Path + ")"
		}
	}
	return v
}

// DescribeChanges joins changes for a report line:
// "glibc 2.36 → 2.39, python 3.11.7 → 3.12.3".
func DescribeChanges(changes []EnvChange) string {
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}
