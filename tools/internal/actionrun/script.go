package actionrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// shellCommand is the command line GitHub runs a script file with, for a
// step's shell: bash or sh (the shells of action.yml and its tests).
func shellCommand(shell, file string) ([]string, error) {
	switch shell {
	case "bash":
		return []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", file}, nil
	case "sh":
		return []string{"sh", "-e", file}, nil
	}
	return nil, unsupported("shell: %s", shell)
}

// stepFiles are the files a step writes GitHub's commands to.
type stepFiles struct {
	output, env, path, summary string
}

func (j *job) newStepFiles(index int) (stepFiles, error) {
	dir := filepath.Join(j.temp, "_runner_file_commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return stepFiles{}, err
	}
	f := stepFiles{
		output:  filepath.Join(dir, fmt.Sprintf("set_output_%d", index)),
		env:     filepath.Join(dir, fmt.Sprintf("set_env_%d", index)),
		path:    filepath.Join(dir, fmt.Sprintf("add_path_%d", index)),
		summary: filepath.Join(dir, fmt.Sprintf("step_summary_%d", index)),
	}
	for _, p := range []string{f.output, f.env, f.path, f.summary} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return stepFiles{}, err
		}
	}
	return f, nil
}

func (f stepFiles) vars() []KeyValue {
	return []KeyValue{
		{"GITHUB_OUTPUT", f.output}, {"GITHUB_ENV", f.env},
		{"GITHUB_PATH", f.path}, {"GITHUB_STEP_SUMMARY", f.summary},
	}
}

// runScript runs a run: step: the script, expressions replaced, in a file
// under RUNNER_TEMP given to the step's shell, in its working directory.
func (j *job) runScript(ctx context.Context, sc *scope, s Step, env []KeyValue, res *StepResult) error {
	script, err := sc.interpolate(s.Run)
	if err != nil {
		return &StepError{Action: j.cfg.Action.Path, Step: s, Field: "run", Err: err}
	}
	dir := j.cfg.Workspace
	if s.WorkingDirectory != "" {
		wd, err := sc.interpolate(s.WorkingDirectory)
		if err != nil {
			return &StepError{Action: j.cfg.Action.Path, Step: s, Field: "working-directory", Err: err}
		}
		if !filepath.IsAbs(wd) {
			wd = filepath.Join(j.cfg.Workspace, wd)
		}
		dir = wd
	}
	files, err := j.newStepFiles(res.Index)
	if err != nil {
		return err
	}
	file := filepath.Join(j.temp, fmt.Sprintf("step-%d.sh", res.Index))
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		return err
	}
	argv, err := shellCommand(s.Shell, file)
	if err != nil {
		return &StepError{Action: j.cfg.Action.Path, Step: s, Field: "shell", Err: err}
	}
	environ := j.environ(env, files.vars())
	if !strings.ContainsRune(argv[0], '/') {
		// GitHub fails the step when its shell is missing.
		if argv[0], err = lookPath(environ, argv[0]); err != nil {
			j.stepFailed(res, 127, "shell: "+err.Error())
			return nil
		}
	}
	res.Log = filepath.Join(j.logs, fmt.Sprintf("%d.log", res.Index))
	code, err := j.exec(ctx, argv, dir, environ, res)
	if err != nil {
		// The runner fails the step when it cannot start it (a missing
		// working directory): say so, and go on as GitHub does.
		j.stepFailed(res, 1, err.Error())
		return nil
	}
	res.ExitCode = code
	res.Outcome = Success
	if code != 0 {
		res.Outcome = Failure
		j.logf("Error: Process completed with exit code %d.", code)
	}
	return j.readStepFiles(files, res)
}

// stepFailed marks res failed with msg, shown as GitHub shows a step's
// own error.
func (j *job) stepFailed(res *StepResult, code int, msg string) {
	res.Outcome, res.ExitCode = Failure, code
	if res.Note == "" {
		res.Note = msg
	}
	j.logf("Error: %s", msg)
	j.annotate(Annotation{Step: res.Name, Level: "error", Message: msg})
}

// readStepFiles applies what the step wrote to GitHub's files: outputs,
// environment, path and summary. A malformed file fails the step, as the
// runner does.
func (j *job) readStepFiles(f stepFiles, res *StepResult) error {
	read := func(p string) (string, error) {
		b, err := os.ReadFile(p)
		return string(b), err
	}
	// keyValues reads GITHUB_OUTPUT or GITHUB_ENV; ok is false when the
	// file is malformed and the step failed for it.
	keyValues := func(p, name string) (kvs []KeyValue, ok bool, err error) {
		data, err := read(p)
		if err != nil {
			return nil, false, err
		}
		if kvs, err = parseKeyValueFile(data); err != nil {
			j.stepFailed(res, max(res.ExitCode, 1), name+": "+err.Error())
			return nil, false, nil
		}
		return kvs, true, nil
	}
	outs, ok, err := keyValues(f.output, "GITHUB_OUTPUT")
	if !ok {
		return err
	}
	res.Outputs = map[string]string{}
	for _, kv := range outs {
		res.Outputs[kv.Key] = kv.Value
	}
	envs, ok, err := keyValues(f.env, "GITHUB_ENV")
	if !ok {
		return err
	}
	j.env = append(j.env, envs...)
	paths, err := read(f.path)
	if err != nil {
		return err
	}
	for _, p := range parsePathFile(paths) {
		j.path = append([]string{p}, removeString(j.path, p)...)
	}
	summary, err := read(f.summary)
	if err != nil {
		return err
	}
	if summary != "" {
		sf, err := os.OpenFile(j.summary, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, werr := io.WriteString(sf, summary)
		if err := errors.Join(werr, sf.Close()); err != nil {
			return err
		}
	}
	return nil
}

func removeString(list []string, s string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// outputGrace is how long a step's output may go on after its shell
// exited (a background process it started still writing).
const outputGrace = 5 * time.Second

// exec runs argv with the step's output (stdout and stderr, interleaved as
// written) copied to the job's log and the step's log file, and its
// workflow commands (annotations) collected. The step gets a process
// group of its own, killed when ctx ends.
func (j *job) exec(ctx context.Context, argv []string, dir string, env []string, res *StepResult) (int, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, fmt.Errorf("working-directory %s does not exist", dir)
	}
	logFile, err := os.Create(res.Log)
	if err != nil {
		return 0, err
	}
	defer logFile.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return 0, err
	}
	w.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(j.cfg.Stdout, line)
			fmt.Fprintln(logFile, line)
			if a, ok := parseAnnotation(line); ok {
				a.Step = res.Name
				j.annotate(a)
			}
		}
		// A line longer than the buffer ends the scan: drain the rest so
		// the step does not block on a full pipe.
		_, _ = io.Copy(io.MultiWriter(j.cfg.Stdout, logFile), r)
	}()
	stop := context.AfterFunc(ctx, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	waitErr := cmd.Wait()
	stop()
	// A process the step left behind may hold the pipe open: the runner
	// ends the step when its shell exits, so stop reading soon after.
	select {
	case <-done:
	case <-time.After(outputGrace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		r.Close()
		<-done
	}
	r.Close()
	if waitErr == nil {
		return 0, nil
	}
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) {
		return 0, waitErr
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return exit.ExitCode(), nil
}
