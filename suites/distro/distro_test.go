package distro_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// sysgate runs the CLI in this process, as a user types it: its exit
// code and what it printed (stdout and stderr together).
func sysgate(args ...string) (int, string) {
	GinkgoHelper()
	var out bytes.Buffer
	c := &cli.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}
	code := c.Main(append([]string{"sysgate"}, args...))
	GinkgoWriter.Printf("$ sysgate %s\n%s\n", strings.Join(args, " "), out.String())
	return code, out.String()
}

// shellWords splits a command as a POSIX shell does for the hints
// sysgate prints (ci.ShellQuote): words apart by spaces, single
// quotes around a word that needs them, and a quote inside one written
// as quote, backslash, quote, quote.
func shellWords(s string) []string {
	var words []string
	var word strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			in, started = !in, true
		case c == ' ' && !in:
			if started {
				words = append(words, word.String())
			}
			word.Reset()
			started = false
		case c == '\\' && !in && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			started = true
		default:
			word.WriteByte(c)
			started = true
		}
	}
	if started {
		words = append(words, word.String())
	}
	return words
}

// copyTree copies the regular files below src to dst.
func copyTree(src, dst string) {
	GinkgoHelper()
	Expect(filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})).To(Succeed())
}

// trixieRoot is the Debian 13 root scripts/rootfs.sh builds once per
// machine. Needs root; skips (fails under CI=true) when Debian's archive
// cannot be reached to build it.
func trixieRoot() string {
	GinkgoHelper()
	testutil.RequireRoot(GinkgoT())
	root, err := fixture.Rootfs("trixie")
	if errors.Is(err, fixture.ErrArchiveUnreachable) {
		testutil.SkipOrFail(GinkgoT(), "archive", "Debian's archive cannot be reached to build the trixie root: "+err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	return root
}

// newRepo is a repository of the spec's own ({repo} in the baselines)
// under /tmp, removed after it, to be bound into the root at the same
// path: a copy of the suites' baselines under suites/baselines, and a
// workspace (fixture.NewWorkspace), whose path it returns too.
func newRepo() (repo, workspace string) {
	GinkgoHelper()
	repo, err := filepath.EvalSymlinks(GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	copyTree(fixture.BaselinesDir(), filepath.Join(repo, "suites", "baselines"))
	Expect(exec.Command("git", "-C", repo, "init", "-q").Run()).To(Succeed())
	workspace = filepath.Join(repo, "workspace")
	Expect(fixture.NewWorkspace(workspace)).To(Succeed())
	return repo, workspace
}

// recordedOnOtherBuilds rewrites the baseline at path (a copy) as if
// recorded on machines of this kind whose kernel builds differ from this
// one's: this kernel's version with build suffixes no machine has, whole
// releases as baselines carried them before they kept the version alone.
// A check against it must name only what differs beyond the kernel's build.
func recordedOnOtherBuilds(path string) {
	GinkgoHelper()
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	Expect(err).NotTo(HaveOccurred())
	major, rest, _ := strings.Cut(strings.TrimSpace(string(release)), ".")
	minor, _, _ := strings.Cut(rest, ".")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	doc, err := baseline.ParseDocument(path, data)
	Expect(err).NotTo(HaveOccurred())
	Expect(doc.Environment).NotTo(BeEmpty(), "%s records no environment", path)
	for i := range doc.Environment {
		doc.Environment[i].Env.Kernel = []string{major + "." + minor + ".44-fc-v657", major + "." + minor + ".0-1-other-build"}
	}
	Expect(os.WriteFile(path, doc.Format(), 0o644)).To(Succeed())
}

var recordHint = regexp.MustCompile("Record it here with `([^`]+)`")

// The suites' Python agent in Debian 13 (trixie: python 3.13, glibc
// 2.41), a root of its own that scripts/rootfs.sh builds once per machine,
// against a copy of the suites' baselines, which hold a runtime layer for
// Debian 12 only: the check names the unrecorded layer and the one
// command that records it; that command, run as printed, records it; the
// same check is then clean; and a check against the Debian 12 layer
// itself names the drift in its text.
var _ = Describe("The Python agent on Debian 13", Ordered, labels.RequiresAudit, labels.Agent("python"), func() {
	var root, repo, workspace, readOnly, runtimeBase, layer, hint string
	var agentCheck []string

	BeforeAll(func() {
		root = trixieRoot()
		// The agent too, bound in with the repository.
		repo, workspace = newRepo()
		copyTree(filepath.Join(fixture.SuitesDir(), "agents", "python"), filepath.Join(repo, "suites", "agents", "python"))
		readOnly = filepath.Join(repo, "suites", "baselines", "python", "read-only.yaml")
		runtimeBase = filepath.Join(repo, "suites", "baselines", "runtimes")
		layer = filepath.Join(runtimeBase, "debian-13", "python-3.13.yaml")

		agentCheck = []string{"check", "-b", readOnly, "--root", root, "--bind", repo, "--dir", workspace, "--",
			"/usr/bin/python3", "-I", "-B", filepath.Join(repo, "suites", "agents", "python", "agent.py"),
			"--workspace", workspace, "--scenario", "read-only"}
	})

	It("names the unrecorded layer and the one command that records it", func() {
		Expect(layer).NotTo(BeAnExistingFile())
		code, out := sysgate(agentCheck...)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("Unrecorded environment: nobody has recorded the layer " + layer + " for os debian-13, python 3.13"))
		m := recordHint.FindStringSubmatch(out)
		Expect(m).NotTo(BeNil(), "no record command in:\n%s", out)
		hint = m[1]
		Expect(hint).To(ContainSubstring("--root " + root))
	})

	It("records the layer with that command, as printed", func() {
		Expect(hint).NotTo(BeEmpty(), "the previous spec found no hint")
		argv := shellWords(hint)
		Expect(argv[0]).To(Equal("sysgate"))
		// Once: a subprocess wait that sleeps in the check and not here
		// is the built-in scheduling group's, which every check allows.
		code, out := sysgate(argv[1:]...)
		Expect(code).To(Equal(0), out)
		data, err := os.ReadFile(layer)
		Expect(err).NotTo(HaveOccurred(), "the record wrote no layer:\n%s", out)
		Expect(string(data)).To(And(ContainSubstring("os: debian 13"), ContainSubstring("libc: glibc 2.41"),
			MatchRegexp(`python 3\.13\.\d+ /usr/bin/python3\.13`), ContainSubstring(`- "{python}"`)),
			"the command's interpreter is written as {python}")
		committed, err := os.ReadFile(fixture.Baseline("runtimes/debian-12/python-3.11.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.ReadFile(filepath.Join(runtimeBase, "debian-12", "python-3.11.yaml"))).To(Equal(committed), "the Debian 12 layer is another environment's")
	})

	It("then checks clean in Debian 13", func() {
		code, out := sysgate(agentCheck...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("CLEAN"))
		Expect(out).NotTo(ContainSubstring("Unrecorded environment"))
	})

	It("names the drift from the Debian 12 layer in the text", func() {
		debian12 := filepath.Join(runtimeBase, "debian-12", "python-3.11.yaml")
		recordedOnOtherBuilds(debian12)
		code, out := sysgate("check", "-b", debian12,
			"--root", root, "--bind", repo, "--dir", workspace, "--",
			"/usr/bin/python3", "-I", "-B", "-c", "import json, subprocess, urllib.request")
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`environment drift: os debian 12 → debian 13, glibc 2\.36 → 2\.41, python 3\.11\.\d+ → 3\.13\.\d+`))
	})
})
