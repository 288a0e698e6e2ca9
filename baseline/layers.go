package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/internal/scmp"
)

// An extends entry may pick a layer by the environment the run is in:
// "../runtimes/{os}/python-{python}.yaml" reads
// "../runtimes/debian-12/python-3.11.yaml" on Debian 12 with CPython 3.11,
// so one agent file serves several runners, each with the runtime layer
// recorded on it. The placeholders (Placeholders) take their values from a
// Selector; a layer nobody recorded yet is not an error: the Profile
// lists it (Unrecorded), and a check says which environment to record
// instead of listing every syscall of the runtime as new.

// Placeholders are the names an extends entry may use in braces, with
// what each stands for.
var Placeholders = map[string]string{
	"arch":   "the architecture: x86_64",
	"os":     "/etc/os-release ID-VERSION_ID: debian-12, ubuntu-24.04",
	"libc":   "the C library and its version: glibc-2.36",
	"kernel": "the kernel's major.minor: 6.18",
	"python": "CPython's major.minor: 3.11",
	"node":   "Node.js's major version: 22",
	"go":     "the Go toolchain's major.minor: 1.26",
}

var placeholderPattern = regexp.MustCompile(`\{([a-z]+)\}`)

// CommandPlaceholders take their values from the command a run starts
// (its interpreter, found through "#!" lines, pyenv, a Go binary's build
// information, and the C library that interpreter uses), not from the
// machine alone: only the run's command picks their layers.
var CommandPlaceholders = []string{"python", "node", "go", "libc"}

// LayerPlaceholders lists the placeholder names path uses, in order.
func LayerPlaceholders(path string) []string {
	var out []string
	for _, m := range placeholderPattern.FindAllStringSubmatch(path, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// LayerChoice is a layered extends entry a loaded stack reached.
type LayerChoice struct {
	File    string // the file with the entry
	Line    int    // of the entry
	Pattern string // as written: ../runtimes/python-{python}.yaml
	// Path is the layer it picked ("" when it picked none). Missing are
	// the placeholders the Selector had no value for; with them, a
	// partial load (LoadStackPartial) picked nothing and Recorded lists
	// the layers the entry can pick that exist.
	Path     string
	Missing  []string
	Recorded []string
}

// Depends reports the placeholders of the entry that only the run's
// command decides (CommandPlaceholders).
func (c LayerChoice) Depends() []string {
	var out []string
	for _, name := range LayerPlaceholders(c.Pattern) {
		if slices.Contains(CommandPlaceholders, name) {
			out = append(out, name)
		}
	}
	return out
}

// Selector holds the placeholders' values for one run.
type Selector map[string]string

// SelectorFor derives the values from the environment of a run on arch.
// A part with several values (a merged fingerprint) gives its first; a
// runtime the environment lacks gives no value.
func SelectorFor(arch scmp.Arch, env Environment) Selector {
	s := Selector{"arch": arch.String()}
	first := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[0]
	}
	if v := first(env.OS); v != "" {
		s["os"] = strings.ReplaceAll(v, " ", "-")
	}
	if v := first(env.Libc); v != "" {
		s["libc"] = strings.ReplaceAll(v, " ", "-")
	}
	if v := versionPrefix(first(env.Kernel), 2); v != "" {
		s["kernel"] = v
	}
	for _, r := range env.Runtimes {
		parts := map[string]int{"python": 2, "node": 1, "go": 2}
		n, ok := parts[r.Name]
		if !ok || s[r.Name] != "" {
			continue
		}
		if v := versionPrefix(r.Version, n); v != "" {
			s[r.Name] = v
		}
	}
	return s
}

// versionPrefix keeps the first n dot-separated numbers: "3.11.7" → "3.11".
func versionPrefix(v string, n int) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	if len(parts) < n {
		return ""
	}
	for _, p := range parts[:n] {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return strings.Join(parts[:n], ".")
}

// String lists the values: "os=debian-12 python=3.11".
func (s Selector) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+s[k])
	}
	return strings.Join(parts, " ")
}

// IsLayered reports whether an extends path picks its file by placeholders.
func IsLayered(path string) bool { return placeholderPattern.MatchString(path) }

// Expand fills path's placeholders from s. It fails naming the first
// placeholder that is unknown or that s has no value for.
func (s Selector) Expand(path string) (string, error) {
	var problem error
	out := placeholderPattern.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		if _, known := Placeholders[name]; !known {
			if problem == nil {
				problem = fmt.Errorf("unknown placeholder %s (known: %s)", m, placeholderNames())
			}
			return m
		}
		v := s[name]
		if v == "" && problem == nil {
			problem = fmt.Errorf("placeholder %s: the environment has no %s (%s)", m, name, Placeholders[name])
		}
		return v
	})
	return out, problem
}

// Glob is path with every placeholder as "*": the files the entry can
// pick from.
func LayerGlob(path string) string { return placeholderPattern.ReplaceAllString(path, "*") }

func placeholderNames() string {
	names := make([]string, 0, len(Placeholders))
	for k := range Placeholders {
		names = append(names, "{"+k+"}")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// UnrecordedLayer is an extends entry whose layer for this environment
// does not exist yet.
type UnrecordedLayer struct {
	File    string   `json:"file"`    // the file with the extends entry
	Line    int      `json:"line"`    // of the entry
	Pattern string   `json:"pattern"` // as written: ../runtimes/{os}/python-{python}.yaml
	Path    string   `json:"path"`    // the layer it picked, relative to the working directory
	Values  Selector `json:"values"`  // the placeholders the pattern used
	// Recorded are the layers that exist for other environments.
	Recorded []string `json:"recorded,omitempty"`
}

// Environment names the values the pattern used: "os debian-12, python 3.12".
func (u UnrecordedLayer) Environment() string {
	keys := make([]string, 0, len(u.Values))
	for k := range u.Values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+" "+u.Values[k])
	}
	return strings.Join(parts, ", ")
}

// used returns the subset of s that pattern names.
func (s Selector) used(pattern string) Selector {
	out := Selector{}
	for _, m := range placeholderPattern.FindAllStringSubmatch(pattern, -1) {
		out[m[1]] = s[m[1]]
	}
	return out
}

// resolveRef returns the file an extends entry of the file at docPath
// names: for a layered entry, the layer s picks. A layered entry without
// a Selector, or with a value missing, is an error.
func resolveRef(docPath string, ref Ref, s Selector) (string, error) {
	path := ref.Path
	if IsLayered(path) {
		if s == nil {
			return "", fmt.Errorf("extends %s picks a layer by the environment, and this use of the file knows none", ref.Path)
		}
		var err error
		if path, err = s.Expand(path); err != nil {
			return "", fmt.Errorf("extends %s: %v", ref.Path, err)
		}
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	return filepath.Join(filepath.Dir(docPath), path), nil
}

// recordedLayers lists the files a layered entry can pick that exist.
func recordedLayers(docPath string, ref Ref) []string {
	glob := LayerGlob(ref.Path)
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(filepath.Dir(docPath), glob)
	}
	matches, _ := filepath.Glob(glob)
	slices.Sort(matches)
	return matches
}

// layerRoot is the directory of a layered entry up to its first
// placeholder ("../runtimes" for "../runtimes/{os}/python-{python}.yaml"):
// every layer the entry can pick lies below it.
func layerRoot(docPath string, ref Ref) string {
	dir := filepath.Dir(ref.Path)
	for IsLayered(dir) {
		dir = filepath.Dir(dir)
	}
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(filepath.Dir(docPath), dir)
}

// layerMissing reports whether reading a layer failed because it does not
// exist (or a Snapshot taken before the run did not find it).
func layerMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotInSnapshot)
}

// RecordLayer writes the missing layer u from a record run's observation:
// what the run needed beyond the file that picks the layer (u.File, with
// its other bases). That file is not touched: its entries serve every
// environment. The layer takes the agent key of an existing sibling layer
// (so baseline updates find it), else its file name.
func RecordLayer(u UnrecordedLayer, o *Observation, opts RecordOptions) (*RecordResult, error) {
	if o == nil {
		return nil, fmt.Errorf("record layer %s: no observation", u.Path)
	}
	opts.Before = opts.Before.withMissing(u.Path)
	read := ReadInput
	if opts.Before != nil {
		read = opts.Before.Read
	}
	agent := ""
	for _, sibling := range u.Recorded {
		if data, err := ReadInput(sibling); err == nil {
			if d, err := ParseDocument(sibling, data); err == nil && d.Agent != "" {
				agent = d.Agent
				break
			}
		}
	}
	if agent == "" {
		agent = strings.TrimSuffix(filepath.Base(u.Path), filepath.Ext(u.Path))
		if !namePattern.MatchString(agent) {
			agent = "layer"
		}
	}
	if _, err := read(u.File); err != nil {
		return nil, fmt.Errorf("record layer %s: %w", u.Path, err)
	}
	layer := *o
	layer.Agent = agent
	opts.Agent, opts.Extends, opts.Merge = agent, nil, false
	opts.Provided = append(append([]string(nil), opts.Provided...), u.File)
	doc, res, err := FromObservation(u.Path, &layer, opts)
	if err != nil {
		return nil, err
	}
	doc.Header = "# sysgate layer for " + u.Environment() + ": picked by " + u.Pattern + " in " + filepath.Base(u.File) +
		".\n# Recorded by sysgate record in that environment; reviewed in pull requests."
	if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
		return nil, fmt.Errorf("record layer: %w", err)
	}
	if err := Save(u.Path, doc); err != nil {
		return nil, err
	}
	return res, nil
}
