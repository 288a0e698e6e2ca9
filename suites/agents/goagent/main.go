// Command goagent is the Go agent of sysgate's suites: a static binary
// whose tool calls (files, a subprocess, an HTTP GET) go through the Go
// runtime instead of an interpreter, so its syscall profile differs from
// python3's and node's. The suites build it with CGO_ENABLED=0.
//
//	goagent -workspace DIR -scenario none|files|exec|http|files+unshare [-url URL]
//
// Scenarios:
//
//	none           nothing: the Go runtime alone (the runtime base)
//	files          list and read the workspace, write a report
//	exec           files, then run `git status` and `sh -c` as subprocesses
//	http           GET -url from a loopback server and save the body
//	files+unshare  files, then unshare(CLONE_NEWUTS) in-process: the bite
//
// Each tool call prints one JSON line; the exit status is 0 only if every
// step succeeded.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

type step struct {
	Tool string
	Run  func() (any, error)
}

func main() {
	workspace := flag.String("workspace", "", "directory the agent works in")
	scenario := flag.String("scenario", "", "none, files, exec, http, files+hook or files+unshare")
	url := flag.String("url", "", "URL for the http scenario")
	flag.Parse()
	if *workspace == "" {
		fmt.Fprintln(os.Stderr, "goagent: -workspace is required")
		os.Exit(2)
	}
	steps, err := plan(*workspace, *scenario, *url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goagent:", err)
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for i, s := range steps {
		obs, err := s.Run()
		rec := map[string]any{"step": i, "tool": s.Tool, "observation": obs}
		if err != nil {
			rec["error"] = err.Error()
		}
		_ = enc.Encode(rec)
		if err != nil {
			os.Exit(1)
		}
	}
}

func plan(ws, scenario, url string) ([]step, error) {
	files := []step{
		{"list_dir", func() (any, error) { return listDir(ws) }},
		{"read_file", func() (any, error) { return readFile(filepath.Join(ws, "README.md")) }},
		{"read_file", func() (any, error) { return readFile(filepath.Join(ws, "src", "app.py")) }},
		{"write_file", func() (any, error) {
			return writeFile(filepath.Join(ws, "out", "go-report.md"), "# Report\n\nWritten by goagent.\n")
		}},
	}
	switch scenario {
	case "none":
		return nil, nil
	case "files":
		return files, nil
	case "exec":
		return append(files,
			step{"run", func() (any, error) { return run(ws, "git", "status", "--porcelain") }},
			step{"run", func() (any, error) { return run(ws, "sh", "-c", "wc -l README.md src/*.py | tail -n 1") }},
		), nil
	case "http":
		if url == "" {
			return nil, errors.New("the http scenario needs -url")
		}
		return []step{
			{"list_dir", func() (any, error) { return listDir(ws) }},
			{"fetch", func() (any, error) { return fetch(url, filepath.Join(ws, "fetched-go.txt")) }},
		}, nil
	case "files+hook":
		// A prompt-injected task that plants a git hook: the next commit
		// in the workspace runs it. The same calls as writing the report.
		return append(files, step{"write_file", func() (any, error) {
			return writeFile(filepath.Join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho planted\n")
		}}), nil
	case "files+unshare":
		return append(files, step{"unshare", func() (any, error) {
			// A new UTS namespace for this process only: harmless, and a
			// syscall no file-handling agent needs. The bite is the call:
			// under sysgate even a root agent lacks CAP_SYS_ADMIN, so
			// EPERM is an outcome here, not a failure.
			err := syscall.Unshare(syscall.CLONE_NEWUTS)
			if errors.Is(err, syscall.EPERM) {
				return "refused (EPERM)", nil
			}
			return "ok", os.NewSyscallError("unshare", err)
		}}), nil
	}
	return nil, fmt.Errorf("unknown scenario %q", scenario)
}

func listDir(dir string) (any, error) {
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, err
}

func readFile(path string) (any, error) {
	b, err := os.ReadFile(path)
	return map[string]int{"bytes": len(b)}, err
}

func writeFile(path, content string) (any, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return map[string]int{"bytes": len(content)}, os.WriteFile(path, []byte(content), 0o644)
}

func run(dir string, argv ...string) (any, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	// No optional locks: git status must not rewrite the index, or the
	// syscall set would depend on file timestamps.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	out, err := cmd.Output()
	return map[string]string{"stdout": string(out)}, err
}

func fetch(url, saveAs string) (any, error) {
	// Never through a proxy from the environment: the server is on loopback.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return map[string]int{"status": resp.StatusCode, "bytes": len(body)}, os.WriteFile(saveAs, body, 0o644)
}
