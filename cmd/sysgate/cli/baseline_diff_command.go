package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/gitshow"
	"github.com/sysgate/sysgate/runenv"
)

// runCommand is the run whose layers baseline diff --base judges: the
// command after "--" and the run's flags that change which layers it
// picks. A run picks a runtime layer ({python}, {node}, {go}, {libc}) by
// the command's own interpreter ("#!", pyenv's version files in its
// directory, a Go binary's build information); a diff that picked it by
// the python3 on its own PATH judged another layer than the run loads
// (issue 43, item 7).
type runCommand struct {
	dir, envFile, env, root string
	argv                    []string
}

func (r *runCommand) register(fs *flag.FlagSet) {
	fs.StringVar(&r.dir, "dir", "", "with -- CMD: the run's --dir `DIR`, where CMD is found and its pyenv version file is read")
	fs.StringVar(&r.envFile, "env-file", "", "with -- CMD: the run's --env-file `FILE`, set over the command's environment")
	fs.StringVar(&r.env, "command-env", "", "with -- CMD: a `FILE` holding the environment the run starts with, NUL-separated as env -0 prints it "+
		"(default: sysgate's own); the action writes the one sudo gives its gate")
	fs.StringVar(&r.root, "root", "", "with -- CMD: the run's --root `DIR`")
}

// splitCommand cuts args at the first "--": the files before it, the
// run's command after.
func splitCommand(args []string) (files, argv []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// selector picks the layers as the run of r would: with its command, the
// run's own selection (runenv.CommandSelector); without one, this
// machine's guess, which judges no layer a command decides (undecided).
func (c *Command) selector(r runCommand) (baseline.Selector, error) {
	if len(r.argv) == 0 {
		return runenv.HostSelector(c.environ()), nil
	}
	env, err := c.commandEnv(r)
	if err != nil {
		return nil, err
	}
	return runenv.CommandSelector(r.argv, env, r.dir, r.root), nil
}

// commandEnv is the environment the run of r starts its command with.
func (c *Command) commandEnv(r runCommand) ([]string, error) {
	env := c.environ()
	if r.env != "" {
		data, err := os.ReadFile(r.env)
		if err != nil {
			return nil, fmt.Errorf("--command-env: %w", err)
		}
		env = nil
		for _, kv := range bytes.Split(data, []byte{0}) {
			if len(kv) > 0 {
				env = append(env, string(kv))
			}
		}
	}
	if r.envFile != "" {
		set, err := readEnvFile(r.envFile)
		if err != nil {
			return nil, err
		}
		env = (&inheritFlags{envSet: set}).env(env)
	}
	return env, nil
}

// undecidedLayers lists the layered extends entries of p whose layer the diff
// cannot tell the run loads, each with why and the fix: without the
// run's command, every entry a command decides; with it, an entry the
// command gives no value for (the run would not load either).
func undecidedLayers(p *baseline.Profile, r runCommand) []string {
	var out []string
	for _, l := range p.Layers() {
		at := fmt.Sprintf("%s:%d: extends %s", l.File, l.Line, l.Pattern)
		switch {
		case len(r.argv) == 0 && len(l.Depends()) > 0:
			out = append(out, fmt.Sprintf("%s picks its layer by %s, which only the run's command decides (its interpreter: \"#!\", pyenv, a Go binary): "+
				"name that command after the files, as the run gets it: sysgate baseline diff --base REF [--dir DIR] FILE... -- CMD [ARGS...] "+
				"(the sysgate action passes its command input)", at, braces(l.Depends())))
		case len(r.argv) > 0 && len(l.Missing) > 0:
			out = append(out, fmt.Sprintf("%s: the command %s gives no %s (it starts no such runtime here), so the run cannot pick this layer either: "+
				"check the command, --dir and --command-env", at, strings.Join(r.argv, " "), braces(l.Missing)))
		}
	}
	return out
}

func braces(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "{" + n + "}"
	}
	return strings.Join(out, ", ")
}

// pickChanges lists the files of the repository that the run's selection
// reads and that the working tree changed since commit: the "#!" line of
// a command that is a script in the repository, and pyenv's version
// files from --dir upwards. The base commit's run picked its layers by
// the old ones, which this diff cannot evaluate (the selection reads the
// working tree): the layer a changed line picks is compared with its own
// base version, not with the layer the base's run loaded, so such a
// change is undecided, never "no widening". depends: the placeholders
// the stacks' layers take from the command.
func (c *Command) pickChanges(commit *gitshow.Commit, r runCommand, depends []string) []string {
	if len(r.argv) == 0 || len(depends) == 0 || r.root != "" {
		return nil
	}
	env, err := c.commandEnv(r)
	if err != nil {
		return nil
	}
	why := fmt.Sprintf("which picks the run's layers (%s): the base commit's run may have loaded other layers than the ones compared here; "+
		"review the layer the change picks (sysgate baseline diff OLD-LAYER NEW-LAYER lists what it allows beyond the old one)", braces(depends))
	var out []string
	if script := lookCommand(r.argv[0], env, r.dir); script != "" {
		if old, err := commit.Read(script); err == nil {
			cur, _ := os.ReadFile(script)
			if firstLine(old) != firstLine(cur) {
				out = append(out, fmt.Sprintf("%s: the pull request changes its \"#!\" line, %s", script, why))
			}
		}
	}
	pyenvPicks := slices.Contains(depends, "python") || slices.Contains(depends, "libc")
	if !pyenvPicks || envValue(env, "PYENV_VERSION") != "" {
		return out
	}
	var starts []string
	if d := envValue(env, "PYENV_DIR"); d != "" {
		starts = append(starts, d)
	}
	for _, start := range append(starts, r.dir) {
		d, err := filepath.Abs(start)
		if err != nil {
			continue
		}
		for ; ; d = filepath.Dir(d) {
			if _, err := commit.Rel(d); err != nil {
				break // above the repository: not the pull request's
			}
			f := filepath.Join(d, ".python-version")
			old, oldErr := commit.Read(f)
			cur, curErr := os.ReadFile(f)
			if (oldErr == nil) != (curErr == nil) || !bytes.Equal(old, cur) {
				out = append(out, fmt.Sprintf("%s: the pull request changes pyenv's version file, %s", f, why))
			}
			if oldErr == nil || curErr == nil || d == filepath.Dir(d) {
				break // pyenv reads the nearest one
			}
		}
	}
	return out
}

// lookCommand finds argv0 as the run's launcher does (a path with a
// slash against dir, else along env's PATH): "" when not found.
func lookCommand(argv0 string, env []string, dir string) string {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p
	}
	candidates := []string{abs(argv0)}
	if !strings.Contains(argv0, "/") {
		candidates = nil
		for _, d := range filepath.SplitList(envValue(env, "PATH")) {
			candidates = append(candidates, abs(filepath.Join(d, argv0)))
		}
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// envValue is key's value in env, the last one winning.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}

// firstLine is a script's "#!" line as the kernel reads it (its first
// 256 bytes).
func firstLine(data []byte) string {
	data = data[:min(len(data), 256)]
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return string(data)
}
