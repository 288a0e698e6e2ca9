package harness

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/envprobe"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// hostEnvironment is what the machine says about itself, or with root
// (WithRoot) what the run's root says about itself; the parts it cannot
// read stay empty (and compare as unknown, never as a change).
func hostEnvironment(root string) baseline.Environment {
	h, _ := envprobe.ProbeHost()
	if root != "" {
		h, _ = envprobe.ProbeRoot(root)
	}
	return environmentOf(h)
}

// environmentOf is a probed host as a baseline fingerprints it: the
// kernel by its version alone (baseline.KernelVersion), so that machines
// of one kind whose kernel builds differ are one environment.
func environmentOf(h envprobe.Host) baseline.Environment {
	var env baseline.Environment
	add := func(list *[]string, v string) {
		if v != "" {
			*list = append(*list, v)
		}
	}
	add(&env.Kernel, baseline.KernelVersion(h.Kernel))
	add(&env.OS, h.OS)
	add(&env.Libc, h.Libc)
	return env
}

// commandEnvironment is the environment a run is about to have, read
// before it starts (nothing is run to learn it): the host, and the
// runtimes the command will most likely start. It picks the layers of
// layered extends entries.
func commandEnvironment(agent Agent, root string) baseline.Environment {
	env := hostEnvironment(root)
	if root != "" {
		return rootCommandEnvironment(env, agent, root)
	}
	for _, r := range envprobe.CommandRuntimes(agent.Command, agent.Env, agent.Dir) {
		env.Merge(baseline.Environment{Runtimes: []baseline.Runtime{runtimeOf(r)}})
	}
	// A command that is no interpreter itself (git, sh -c "python3 ...")
	// still picks its layers by the interpreters its PATH would start.
	for name, cmd := range map[string]string{"python": "python3", "node": "node"} {
		if hasRuntime(env, name) {
			continue
		}
		for _, r := range envprobe.CommandRuntimes([]string{cmd}, agent.Env, agent.Dir) {
			env.Merge(baseline.Environment{Runtimes: []baseline.Runtime{runtimeOf(r)}})
		}
	}
	for _, r := range env.Runtimes {
		if libc := envprobe.Libc(r.Path); r.Path != "" && libc != "" {
			env.Libc = []string{libc}
			break
		}
	}
	return env
}

func hasRuntime(env baseline.Environment, name string) bool {
	for _, r := range env.Runtimes {
		if r.Name == name {
			return true
		}
	}
	return false
}

// runEnvironment is the environment a run had: the host, the runtimes
// among the programs its processes ran, and the libc the first of them
// used. Without program observation it falls back to the command's.
func runEnvironment(programs []verdict.ProgramRun, before baseline.Environment, root string) baseline.Environment {
	env := hostEnvironment(root)
	libc := ""
	for _, p := range programs {
		r, ok := identifyIn(root, p.Path)
		if !ok {
			continue
		}
		env.Merge(baseline.Environment{Runtimes: []baseline.Runtime{runtimeOf(r)}})
		if libc == "" {
			libc = libcIn(root, r.Path)
		}
	}
	if len(programs) == 0 {
		env.Runtimes = before.Runtimes
		libc = ""
		if len(before.Libc) > 0 {
			libc = before.Libc[0]
		}
	}
	if libc != "" {
		env.Libc = []string{libc}
	}
	return env
}

// noteEnvironment records where the run ran: into the observation (a
// record run writes it into the baseline), and for a check or enforce run
// against baselines, how it differs from theirs and which layers are
// missing.
//
// Runtimes' paths are written from the run's placeholders (a pyenv under
// {home}), and a recorded one is read the same way, so a baseline
// recorded by another user, or by an older sysgate, compares equal.
func noteEnvironment(r *verdict.Result, env baseline.Environment, profile *baseline.Profile, mode baseline.Mode, places baseline.FileContext) {
	if env.IsZero() {
		return
	}
	env = env.Abstract(places)
	r.Environment = &env
	if r.Observed != nil {
		r.Observed.AddEnvironment(r.Arch, env)
	}
	if profile == nil || mode == baseline.ModeRecord {
		return
	}
	recorded, ok := profile.Environment(r.Arch)
	r.Drift = &verdict.Drift{Recorded: ok}
	if ok {
		r.Drift.Changes = baseline.CompareEnvironments(recorded.Abstract(places), env)
	}
	r.Unrecorded = profile.Unrecorded()
}

// HostSelector picks layers for commands that run no agent (validate,
// export, compare): this machine, with the python3 and node its PATH
// (taken from env) would start. It is a guess at what a run would pick:
// a run picks by its command (CommandSelector).
func HostSelector(env []string) baseline.Selector {
	e := hostEnvironment("")
	for _, cmd := range []string{"python3", "node"} {
		for _, r := range envprobe.CommandRuntimes([]string{cmd}, env, "") {
			e.Merge(baseline.Environment{Runtimes: []baseline.Runtime{runtimeOf(r)}})
		}
	}
	return selectorOf(e)
}

// CommandSelector picks the layers a run of agent (in root, WithRoot's
// tree, when not "") would pick: the same reading of the machine and of
// agent's Command, Env and Dir, before anything runs, as the run's own
// (commandEnvironment, selectorOf). baseline diff --base calls it with
// the run's command, so that it judges the layers the run loads.
func CommandSelector(agent Agent, root string) baseline.Selector {
	return selectorOf(commandEnvironment(agent, root))
}

// selectorOf is the one way a run's environment picks its layers.
func selectorOf(env baseline.Environment) baseline.Selector {
	return baseline.SelectorFor(scmp.Native(), env)
}

// runtimeOf converts a probed runtime. A Go runtime is compiled into the
// agent: its version matters, not where the binary lies (a checkout's
// path would differ on every machine).
func runtimeOf(r envprobe.Runtime) baseline.Runtime {
	out := baseline.Runtime{Name: r.Name, Version: r.Version, Path: r.Path}
	if r.Name == "go" {
		out.Path = ""
	}
	return out
}

// rootCommandEnvironment is commandEnvironment in the run's own root
// (WithRoot): the command and python3 and node are looked up along the
// agent's $PATH inside root and identified there. Shebangs and version
// managers are not followed: a root is a distribution's own tree.
func rootCommandEnvironment(env baseline.Environment, agent Agent, root string) baseline.Environment {
	if len(agent.Command) == 0 {
		return env
	}
	for _, cmd := range []string{agent.Command[0], "python3", "node"} {
		for _, p := range kernel.CandidatePaths(cmd, agent.Env) {
			if r, ok := envprobe.IdentifyIn(root, p); ok && !hasRuntime(env, r.Name) {
				env.Merge(baseline.Environment{Runtimes: []baseline.Runtime{runtimeOf(r)}})
				break
			}
		}
	}
	for _, r := range env.Runtimes {
		if libc := envprobe.LibcIn(root, r.Path); r.Path != "" && libc != "" {
			env.Libc = []string{libc}
			break
		}
	}
	return env
}

func identifyIn(root, path string) (envprobe.Runtime, bool) {
	if root == "" {
		return envprobe.Identify(path)
	}
	return envprobe.IdentifyIn(root, path)
}

func libcIn(root, path string) string {
	if root == "" {
		return envprobe.Libc(path)
	}
	return envprobe.LibcIn(root, path)
}
