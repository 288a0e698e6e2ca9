package harness

import (
	"path/filepath"
	"regexp"
	"strings"
)

// interpreterName matches the base names of programs that run the agent
// rather than being it: naming an agent "python3" or "node" says nothing
// of which agent it is, and every agent of a repository would share it.
var interpreterName = regexp.MustCompile(`^(python|pypy|node|nodejs|bun|deno|ruby|perl|php|bash|sh|dash|zsh|env|uv|npx|tsx|ts-node)[0-9.]*(-[a-z]+)?$`)

// valueFlags are interpreter options whose value is the next argument,
// so that argument is not the script: python's -W and -X, node's -r and
// --require.
var valueFlags = map[string]bool{"-W": true, "-X": true, "-r": true, "-C": true,
	"--require": true, "--import": true, "--loader": true, "--experimental-loader": true}

// inlineFlags run code given on the command line: there is no script
// to name the agent after.
var inlineFlags = map[string]bool{"-c": true, "-e": true, "-p": true, "--eval": true, "--print": true}

// genericScripts are entry points whose name is their package's
// convention, not the agent's: index.js, main.py, __main__.py. Their
// directory names the agent instead (skipping build directories):
// node_modules/@scope/server-filesystem/dist/index.js is
// "server-filesystem".
var genericScripts = map[string]bool{"index": true, "main": true, "__main__": true, "cli": true, "server": true, "app": true}

var buildDirs = map[string]bool{"dist": true, "lib": true, "src": true, "bin": true, "build": true, "out": true, "cjs": true, "esm": true}

// AgentName is the agent's name in reports, observations and a recorded
// baseline's agent key: agent.Name when set; else the command's script,
// its base name without extension (python3 triage.py is "triage", node
// dist/index.js of a package is the package's directory); else the
// command's base name when it is no interpreter; else the base name of
// the directory the agent runs in (python3 -c ..., node -e ...).
func AgentName(agent Agent) string {
	if agent.Name != "" {
		return agent.Name
	}
	if len(agent.Command) == 0 {
		return ""
	}
	first := filepath.Base(agent.Command[0])
	if !interpreterName.MatchString(first) {
		return stripExt(first)
	}
	dirName := filepath.Base(launchDir(agent.Dir))
	if dirName == "/" || dirName == "." || dirName == "" {
		dirName = first
	}
	if script, ok := scriptArg(agent.Command[1:]); ok {
		return scriptName(script, dirName)
	}
	return dirName
}

// scriptArg is the first argument of an interpreter's command line that
// is not one of its options: the script, a module (-m), or the program
// an env or npx runs. ok is false when the code is inline (-c, -e).
func scriptArg(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case inlineFlags[a]:
			return "", false
		case a == "-m":
			if i+1 < len(args) {
				return strings.ReplaceAll(args[i+1], ".", "/"), true
			}
			return "", false
		case valueFlags[a]:
			i++
		case a == "--" || a == "-":
			if a == "--" && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case strings.HasPrefix(a, "-"), strings.Contains(a, "=") && !strings.Contains(a, "/"):
			// an option, or env's NAME=VALUE
		case interpreterName.MatchString(filepath.Base(a)):
			// env python3 x.py, uv run python x.py
		case a == "run" || a == "exec":
			// uv run, npx's subcommands
		default:
			return a, true
		}
	}
	return "", false
}

// scriptName is script's base name without extension, or for a generic
// entry point the nearest directory that is no build directory, else
// dirName (the agent's working directory's).
func scriptName(script, dirName string) string {
	script = filepath.Clean(script)
	name := stripExt(filepath.Base(script))
	if !genericScripts[name] {
		return name
	}
	for dir := filepath.Dir(script); dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		if base := filepath.Base(dir); !buildDirs[base] {
			return base
		}
	}
	return dirName
}

func stripExt(name string) string {
	if ext := filepath.Ext(name); ext != "" && ext != name {
		return strings.TrimSuffix(name, ext)
	}
	return name
}
