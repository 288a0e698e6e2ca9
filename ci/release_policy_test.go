package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// releaseWorkflow is the part of release.yml these tests read.
type releaseWorkflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]trustJob `yaml:"jobs"`
}

// tagFilter is GitHub's filter pattern as a regexp: * is any run of
// characters but /, + repeats the character or class before it.
func tagFilter(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString("[^/]*")
		case '[':
			end := strings.IndexByte(pattern[i:], ']')
			b.WriteString(pattern[i : i+end+1])
			i += end
		case '+', '?':
			b.WriteByte(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// TestReleaseWorkflow: release.yml builds both arches with the cross
// toolchain, attests them in a job of their own with a pinned action, and
// releases them and moves the major tag in another; a push of the major tag
// itself starts no release.
func TestReleaseWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf releaseWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	runs := func(job string) string {
		var all []string
		for _, s := range wf.Jobs[job].Steps {
			all = append(all, s.Run)
		}
		return strings.Join(all, "\n")
	}
	uses := func(job, action string) bool {
		return slices.ContainsFunc(wf.Jobs[job].Steps, func(s trustStep) bool { return strings.HasPrefix(s.Uses, action+"@") })
	}
	for _, want := range []string{"make release release-arm64", "gcc-aarch64-linux-gnu", "libseccomp-dev:arm64", "dpkg --add-architecture arm64"} {
		if !strings.Contains(runs("build"), want) {
			t.Errorf("the build job does not run %q", want)
		}
	}
	if !uses("attest", "actions/attest-build-provenance") {
		t.Error("the attest job does not use actions/attest-build-provenance")
	}
	if p := wf.Jobs["attest"].Permissions; p["id-token"] != "write" || p["attestations"] != "write" || p["contents"] == "write" {
		t.Errorf("attest job permissions %v: want id-token and attestations write, contents not", p)
	}
	for name, job := range wf.Jobs {
		if name != "attest" && (job.Permissions["id-token"] != "" || job.Permissions["attestations"] != "") {
			t.Errorf("job %s: %v: id-token and attestations belong to the attest job alone", name, job.Permissions)
		}
	}
	rel := runs("release")
	for _, want := range []string{"dist/sysgate-linux-arm64", "git/refs/tags/$major", "sha256sum --quiet -c"} {
		if !strings.Contains(rel, want) {
			t.Errorf("the release job does not run %q", want)
		}
	}
	if len(wf.On.Push.Tags) == 0 {
		t.Fatal("release.yml runs on no pushed tag")
	}
	match := func(tag string) bool {
		return slices.ContainsFunc(wf.On.Push.Tags, func(p string) bool { return tagFilter(p).MatchString(tag) })
	}
	for tag, want := range map[string]bool{"v1.2.3": true, "v0.10.0-rc.1": true, "v1": false, "v2": false, "latest": false} {
		if got := match(tag); got != want {
			t.Errorf("a push of tag %s starts a release: %v, want %v (filters %q)", tag, got, want, wf.On.Push.Tags)
		}
	}
}

// TestDependabotKeepsPinsCurrent: .github/dependabot.yml updates the
// github-actions pins of the repository root (the workflows and the
// composite action.yml).
func TestDependabotKeepsPinsCurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Updates []struct {
			Ecosystem   string   `yaml:"package-ecosystem"`
			Directory   string   `yaml:"directory"`
			Directories []string `yaml:"directories"`
			Schedule    struct {
				Interval string `yaml:"interval"`
			} `yaml:"schedule"`
		} `yaml:"updates"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("dependabot.yml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf("dependabot.yml: version %d, want 2", cfg.Version)
	}
	found := false
	for _, u := range cfg.Updates {
		dirs := append([]string{u.Directory}, u.Directories...)
		found = found || u.Ecosystem == "github-actions" && slices.Contains(dirs, "/") && u.Schedule.Interval != ""
	}
	if !found {
		t.Errorf("dependabot.yml has no github-actions update of / with a schedule:\n%s", data)
	}
}
