package faults_test

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Issue 42, item 8: the tools an agent runs every day are recorded, and
// the same invocation with the same inputs in a fresh workspace is then
// checked clean. On the audit backend rm -rf, tar -c and find -delete
// were inconclusive on every record: fts and tar name files relative to
// directory descriptors (unlinkat(fd, "f"), openat(fd, "sub")), and the
// observer gave those names up. The backend is the run's default
// (audit as root here; the notify pass sets SYSGATE_BACKEND=notify).
// Each step runs once: a check that differs from its record only by
// scheduling (npm's sched_yield) or by serial gaps of other processes
// fails here, as it fails a user's CI (issue 42, items 1 and 3).

// everydayTool is one tool: how to prepare a workspace for it (the
// same inputs for the record and for the check), and its command line.
type everydayTool struct {
	prepare func(ws string)
	argv    []string
}

var _ = Describe("everyday tools", RequiresAudit, func() {
	BeforeEach(func() { requireAudit() })

	DescribeTable("are recorded, then checked clean in a fresh workspace",
		func(ctx SpecContext, t everydayTool) {
			base := filepath.Join(GinkgoT().TempDir(), "tool.yaml")
			rec := everydayRun(ctx, t, "record", "--user", "root", "-o", base)
			Expect(rec.Code).To(Equal(cli.ExitOK), "record: %s", rec)
			o := everydayRun(ctx, t, "check", "--user", "root", "-b", base)
			Expect(o.Code).To(Equal(cli.ExitOK), "check of the same invocation: %s", o)
		},
		tool("rm -rf", sourceTree, "rm", "-rf", "tree"),
		tool("tar -c", sourceTree, "tar", "-cf", "out.tar", "tree"),
		tool("tar -cz", sourceTree, "tar", "-czf", "out.tar.gz", "tree"),
		tool("tar -x", tarball, "tar", "-xf", "in.tar", "-C", "out"),
		tool("cp -a", sourceTree, "cp", "-a", "tree", "copy"),
		tool("mv", sourceTree, "mv", "tree", "moved"),
		tool("find -delete", sourceTree, "find", "tree", "-name", "*.o", "-delete"),
		tool("git clone", gitSource, "git", "clone", "-q", "src", "clone"),
		tool("make", makeProject, "make", "-s"),
		tool("gcc", cSource, "gcc", "-O1", "-o", "hello", "hello.c"),
		tool("python3 -m compileall", sourceTree, "/usr/bin/python3", "-m", "compileall", "-q", "tree"),
		tool("npm ci from a local cache", npmProject, "npm", "ci", "--offline", "--cache", "cache", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"),
	)
})

// tool is one entry. npm ci alone took 9-16 s here beside the machine's
// other work (load 44 on 2 cores), and record logs every call it makes:
// the spec's deadline is longer than the suite's default.
func tool(name string, prepare func(ws string), argv ...string) TableEntry {
	return Entry(name, everydayTool{prepare: prepare, argv: argv}, SpecTimeout(6*time.Minute))
}

// everydayRun runs sysgate VERB ARGS -- tool in a fresh workspace the
// tool prepared, with a home of its own.
func everydayRun(ctx context.Context, t everydayTool, verb string, args ...string) outcome {
	GinkgoHelper()
	ws := workDir()
	home := filepath.Join(filepath.Dir(ws), "home")
	Expect(os.Mkdir(home, 0o755)).To(Succeed())
	t.prepare(ws)
	all := append([]string{verb}, args...)
	all = append(all, "--")
	all = append(all, t.argv...)
	// Once: no run is repeated (a repeat in the same workspace would not
	// be the same invocation, and a user's CI repeats nothing).
	return sysgateWith(ctx, func(cmd *exec.Cmd) {
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+home)
	}, all...)
}

// writeFiles writes name → content under dir, making directories.
func writeFiles(dir string, files map[string]string) {
	GinkgoHelper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(content), 0o644)).To(Succeed())
	}
}

// prepCommand runs a preparation step in dir (outside any run).
func prepCommand(dir string, argv ...string) {
	GinkgoHelper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(filepath.Dir(dir), "home"))
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "prepare %v: %s", argv, out)
}

// sourceTree is a tree three levels deep, with object files to find and
// Python modules to compile.
func sourceTree(ws string) {
	GinkgoHelper()
	writeFiles(ws, map[string]string{
		"tree/README":              "a tree\n",
		"tree/a.o":                 "object\n",
		"tree/mod.py":              "X = 1\n",
		"tree/sub/b.o":             "object\n",
		"tree/sub/util.py":         "def f():\n    return 2\n",
		"tree/sub/deeper/c.txt":    "deep\n",
		"tree/sub/deeper/d.o":      "object\n",
		"tree/sub/deeper/third.py": "Y = 3\n",
	})
}

// tarball is the source tree in in.tar, and an empty out/ to extract to.
func tarball(ws string) {
	GinkgoHelper()
	sourceTree(ws)
	prepCommand(ws, "tar", "-cf", "in.tar", "tree")
	Expect(os.RemoveAll(filepath.Join(ws, "tree"))).To(Succeed())
	Expect(os.Mkdir(filepath.Join(ws, "out"), 0o755)).To(Succeed())
}

// gitSource is a repository with two commits in src/.
func gitSource(ws string) {
	GinkgoHelper()
	src := filepath.Join(ws, "src")
	writeFiles(src, map[string]string{"README": "src\n", "lib/a.txt": "a\n"})
	git := func(args ...string) {
		GinkgoHelper()
		prepCommand(src, append([]string{"git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	writeFiles(src, map[string]string{"lib/b.txt": "b\n"})
	git("add", ".")
	git("commit", "-q", "-m", "two")
}

// makeProject is a Makefile whose targets run a shell recipe.
func makeProject(ws string) {
	GinkgoHelper()
	writeFiles(ws, map[string]string{
		"in.txt":   "input\n",
		"Makefile": "all: out/copy.txt\n\nout/copy.txt: in.txt\n\tmkdir -p out\n\tcat in.txt > $@\n",
	})
}

// cSource is a C program.
func cSource(ws string) {
	GinkgoHelper()
	writeFiles(ws, map[string]string{"hello.c": "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n"})
}

// npmProject is a package whose lock file names one dependency, held in
// an npm cache in the workspace (npm ci --offline takes it from there,
// by its integrity): a tiny package packed and added to the cache.
func npmProject(ws string) {
	GinkgoHelper()
	writeFiles(ws, map[string]string{
		"tiny/package.json": `{"name":"tiny","version":"1.0.0","main":"index.js"}` + "\n",
		"tiny/index.js":     "module.exports = 1;\n",
	})
	prepCommand(filepath.Join(ws, "tiny"), "npm", "pack", "--silent", "--pack-destination", "..")
	tgz := filepath.Join(ws, "tiny-1.0.0.tgz")
	prepCommand(ws, "npm", "cache", "add", tgz, "--cache", filepath.Join(ws, "cache"), "--offline", "--loglevel=error")
	data, err := os.ReadFile(tgz)
	Expect(err).NotTo(HaveOccurred())
	sum := sha512.Sum512(data)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	Expect(os.RemoveAll(filepath.Join(ws, "tiny"))).To(Succeed())
	Expect(os.Remove(tgz)).To(Succeed())
	lock := fmt.Sprintf(`{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{`+
		`"":{"name":"app","version":"1.0.0","dependencies":{"tiny":"1.0.0"}},`+
		`"node_modules/tiny":{"version":"1.0.0","resolved":"https://registry.npmjs.org/tiny/-/tiny-1.0.0.tgz","integrity":%q}}}`, integrity)
	writeFiles(ws, map[string]string{
		"package.json":      `{"name":"app","version":"1.0.0","dependencies":{"tiny":"1.0.0"}}` + "\n",
		"package-lock.json": strings.TrimSpace(lock) + "\n",
	})
}
