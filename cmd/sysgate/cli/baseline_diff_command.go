package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
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
// run's own selection (harness.CommandSelector); without one, this
// machine's guess, which judges no layer a command decides (undecided).
func (c *Command) selector(r runCommand) (baseline.Selector, error) {
	if len(r.argv) == 0 {
		return harness.HostSelector(c.environ()), nil
	}
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
	return harness.CommandSelector(harness.Agent{Command: r.argv, Env: env, Dir: r.dir}, r.root), nil
}

// undecided lists the layered extends entries of p whose layer the diff
// cannot tell the run loads, each with why and the fix: without the
// run's command, every entry a command decides; with it, an entry the
// command gives no value for (the run would not load either).
func undecided(p *baseline.Profile, r runCommand) []string {
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
