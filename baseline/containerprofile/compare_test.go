package containerprofile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

const profilesDir = "testdata/profiles"

func parseProfile(t *testing.T, text string) *ContainerProfile {
	t.Helper()
	cp, err := parseContainerProfile("p.json", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return cp
}

func compareOne(t *testing.T, cp *ContainerProfile, arch scmp.Arch, key string, opts CompareOptions) ProfileDecision {
	t.Helper()
	c, err := Compare(cp, Needs{arch: {{Key: key}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Arches[0]
	switch {
	case len(a.Denied) == 1:
		return a.Denied[0]
	case len(a.Conditional) == 1:
		return a.Conditional[0]
	case a.Allowed == 1:
		return ProfileDecision{Syscall: key, Verdict: VerdictAllowed}
	}
	t.Fatalf("%s %s: no decision in %+v", arch, key, a)
	return ProfileDecision{}
}

type verdictCase struct {
	arch scmp.Arch
	key  string
	opts CompareOptions
	want string // verdict
}

func checkVerdicts(t *testing.T, cp *ContainerProfile, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		d := compareOne(t, cp, c.arch, c.key, c.opts)
		if d.Verdict != c.want {
			t.Errorf("%s %s %+v: %s (%s), want %s", c.arch, c.key, c.opts, d.Verdict, d.Why, c.want)
		}
	}
}

func TestCompareIncludesArches(t *testing.T) {
	cp := parseProfile(t, `{
	"defaultAction": "SCMP_ACT_ERRNO",
	"archMap": [
		{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86"]},
		{"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]}
	],
	"syscalls": [
		{"names": ["read", "getpid"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["getppid"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["arm64"]}},
		{"names": ["gettid"], "action": "SCMP_ACT_ALLOW", "excludes": {"arches": ["arm64"]}},
		{"names": ["getuid"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["x86"]}}
	]}`)
	checkVerdicts(t, cp, []verdictCase{
		{scmp.X86_64, "read", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "write", CompareOptions{}, VerdictDenied},
		{scmp.X86_64, "getppid", CompareOptions{}, VerdictDenied},
		{scmp.AArch64, "getppid", CompareOptions{}, VerdictAllowed},
		// arm is arm64's sub-arch: moby matches the host's name
		{scmp.ARM, "getppid", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "gettid", CompareOptions{}, VerdictAllowed},
		{scmp.AArch64, "gettid", CompareOptions{}, VerdictDenied},
		// i386 on an amd64 host: "x86" is not the host, so not included
		{scmp.I386, "getuid", CompareOptions{}, VerdictDenied},
		{scmp.I386, "getpid", CompareOptions{}, VerdictAllowed},
		// x32 is not in the amd64 entry: no x32 call gets through
		{scmp.X32, "read", CompareOptions{}, VerdictDenied},
		// ppc64le has no entry: the host's native arch only, so covered
		{scmp.PPC64LE, "read", CompareOptions{}, VerdictAllowed},
	})
	if d := compareOne(t, cp, scmp.X32, "read", CompareOptions{}); !strings.Contains(d.Why, "no x32 call") {
		t.Errorf("x32 read: %q, want it to say the arch is not let through", d.Why)
	}
	c, err := Compare(cp, Needs{scmp.X86_64: {{Key: "read"}}}, CompareOptions{})
	if err != nil || !slices.Equal(c.UnusedArches, []scmp.Arch{scmp.I386}) {
		t.Errorf("unused arches %v, %v; want [i386] (x32 is not let through)", c.UnusedArches, err)
	}
}

func TestCompareArchitecturesList(t *testing.T) {
	listed := parseProfile(t, `{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X32"]}`)
	bare := parseProfile(t, `{"defaultAction": "SCMP_ACT_ALLOW"}`)
	for _, c := range []struct {
		cp   *ContainerProfile
		arch scmp.Arch
		want string
	}{
		{listed, scmp.X86_64, VerdictAllowed},
		{listed, scmp.X32, VerdictAllowed},
		{listed, scmp.I386, VerdictDenied},
		{listed, scmp.AArch64, VerdictAllowed}, // the host's own arch is always in a filter
		{bare, scmp.X86_64, VerdictAllowed},
		{bare, scmp.I386, VerdictDenied},
	} {
		if d := compareOne(t, c.cp, c.arch, "read", CompareOptions{}); d.Verdict != c.want {
			t.Errorf("%s read: %s, want %s", c.arch, d.Verdict, c.want)
		}
	}
}

func TestCompareCapsAndKernel(t *testing.T) {
	cp := parseProfile(t, `{
	"defaultAction": "SCMP_ACT_ERRNO",
	"defaultErrnoRet": 1,
	"syscalls": [
		{"names": ["unshare", "mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
		{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38, "excludes": {"caps": ["CAP_SYS_ADMIN"]}},
		{"names": ["clone3"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
		{"names": ["ptrace"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "4.8"}},
		{"names": ["kcmp"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_PTRACE"], "minKernel": "5.0"}},
		{"names": ["getpid"], "action": "SCMP_ACT_ALLOW", "excludes": {"minKernel": "6.0"}}
	]}`)
	admin := CompareOptions{Caps: []string{"CAP_SYS_ADMIN"}}
	checkVerdicts(t, cp, []verdictCase{
		{scmp.X86_64, "unshare(CLONE_NEWUSER)", CompareOptions{}, VerdictDenied},
		{scmp.X86_64, "unshare(CLONE_NEWUSER)", admin, VerdictAllowed},
		{scmp.X86_64, "clone3", CompareOptions{}, VerdictDenied},
		{scmp.X86_64, "clone3", admin, VerdictAllowed},
		{scmp.X86_64, "ptrace(PTRACE_TRACEME)", CompareOptions{}, VerdictConditional},
		{scmp.X86_64, "ptrace(PTRACE_TRACEME)", CompareOptions{Kernel: "4.4"}, VerdictDenied},
		{scmp.X86_64, "ptrace(PTRACE_TRACEME)", CompareOptions{Kernel: "6.18.0-1-amd64"}, VerdictAllowed},
		{scmp.X86_64, "kcmp", CompareOptions{}, VerdictDenied},
		{scmp.X86_64, "kcmp", CompareOptions{Caps: []string{"CAP_SYS_PTRACE"}}, VerdictConditional},
		{scmp.X86_64, "getpid", CompareOptions{}, VerdictConditional},
		{scmp.X86_64, "getpid", CompareOptions{Kernel: "5.15"}, VerdictAllowed},
		{scmp.X86_64, "getpid", CompareOptions{Kernel: "6.1"}, VerdictDenied},
	})
	d := compareOne(t, cp, scmp.X86_64, "unshare(CLONE_NEWUSER)", CompareOptions{})
	if d.Action != "SCMP_ACT_ERRNO" || d.Errno != "EPERM" || d.Rule != "defaultAction" || d.RuleLine != 2 ||
		!slices.Equal(d.AllowedWith, []string{"CAP_SYS_ADMIN"}) {
		t.Errorf("unshare: %+v; want EPERM by the default action (line 2), allowed with CAP_SYS_ADMIN", d)
	}
	d = compareOne(t, cp, scmp.X86_64, "clone3", CompareOptions{})
	if d.Errno != "ENOSYS" || d.Rule != "syscalls[1]" || d.RuleLine != 6 || !slices.Equal(d.AllowedWith, []string{"CAP_SYS_ADMIN"}) {
		t.Errorf("clone3: %+v; want ENOSYS by syscalls[1] at line 6, allowed with CAP_SYS_ADMIN", d)
	}
	d = compareOne(t, cp, scmp.X86_64, "kcmp", CompareOptions{})
	if !slices.Equal(d.AllowedWith, []string{"CAP_SYS_PTRACE and kernel >= 5.0"}) {
		t.Errorf("kcmp: allowed with %q", d.AllowedWith)
	}
	d = compareOne(t, cp, scmp.X86_64, "ptrace(PTRACE_TRACEME)", CompareOptions{})
	if !strings.Contains(d.Why, "kernel >= 4.8") || d.RuleLine != 8 {
		t.Errorf("ptrace: %+v; want kernel >= 4.8 from line 8", d)
	}
	if _, err := Compare(cp, Needs{scmp.X86_64: {{Key: "read"}}}, CompareOptions{Kernel: "six"}); err == nil {
		t.Error("--kernel six accepted")
	}
}

func TestCompareArguments(t *testing.T) {
	cp := parseProfile(t, `{
	"defaultAction": "SCMP_ACT_ERRNO",
	"syscalls": [
		{"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 3, "op": "SCMP_CMP_LT"}]},
		{"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 16, "op": "SCMP_CMP_EQ"}]},
		{"names": ["clone"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 2114060288, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["personality"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQ"}, {"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]},
		{"names": ["openat"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 2, "value": 1, "op": "SCMP_CMP_NE"}]},
		{"names": ["mprotect"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["mprotect"], "action": "SCMP_ACT_KILL_PROCESS", "args": [{"index": 2, "value": 6, "valueTwo": 6, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["ioctl"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 1, "value": 21505, "op": "SCMP_CMP_GE"}, {"index": 2, "value": 0, "op": "SCMP_CMP_EQ"}]}
	]}`)
	checkVerdicts(t, cp, []verdictCase{
		{scmp.X86_64, "socket(AF_UNIX)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "socket(AF_INET, SOCK_RAW)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "socket(AF_NETLINK)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "socket(AF_INET6)", CompareOptions{}, VerdictDenied},
		{scmp.X86_64, "socket", CompareOptions{}, VerdictConditional}, // argument-blind
		{scmp.X86_64, "clone(none)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "clone(CLONE_NEWUSER)", CompareOptions{}, VerdictDenied},
		// two comparisons on one argument: runc adds them as alternatives
		{scmp.X86_64, "personality(PER_LINUX)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "personality(PER_LINUX32)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "personality(query)", CompareOptions{}, VerdictDenied},
		// openat(read) has O_WRONLY clear, so flags != 1 for all of it;
		// openat(write) is O_WRONLY (1) or O_RDWR: some
		{scmp.X86_64, "openat(read)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "openat(write)", CompareOptions{}, VerdictConditional},
		{scmp.X86_64, "mprotect(W^X)", CompareOptions{}, VerdictAllowed},
		{scmp.X86_64, "mprotect(W+X)", CompareOptions{}, VerdictDenied},
		// the class fixes arg 1; arg 2 (a pointer) stays open
		{scmp.X86_64, "ioctl(TCGETS)", CompareOptions{}, VerdictConditional},
		{scmp.X86_64, "ioctl(FIOCLEX)", CompareOptions{}, VerdictConditional},
		{scmp.X86_64, "ioctl(0x5400)", CompareOptions{}, VerdictDenied},
	})
	d := compareOne(t, cp, scmp.X86_64, "mprotect(W+X)", CompareOptions{})
	if d.Action != "SCMP_ACT_KILL_PROCESS" || d.Errno != "" || d.Rule != "syscalls[6]" {
		t.Errorf("mprotect(W+X): %+v, want killed by syscalls[6]", d)
	}
	d = compareOne(t, cp, scmp.X86_64, "socket", CompareOptions{})
	if !strings.Contains(d.Why, "record with argument classes") {
		t.Errorf("blind socket: %q", d.Why)
	}
}

// TestArgCoverageAgainstEnumeration checks the coverage arithmetic against
// every call of small classes: ranges over the low 6 bits (the rest fixed
// at zero), comparisons with values in the low 7 bits.
func TestArgCoverageAgainstEnumeration(t *testing.T) {
	ops := []specs.LinuxSeccompOperator{specs.OpNotEqual, specs.OpLessThan, specs.OpLessEqual, specs.OpEqualTo,
		specs.OpGreaterEqual, specs.OpGreaterThan, specs.OpMaskedEqual}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		free := rng.Uint64() & 0x3f
		r := argRange{mask: ^free, value: rng.Uint64() & 0x3f &^ free}
		a := specs.LinuxSeccompArg{Op: ops[rng.IntN(len(ops))], Value: rng.Uint64() & 0x7f, ValueTwo: rng.Uint64() & 0x7f}
		matched, total := 0, 0
		for x := uint64(0); x < 64; x++ {
			if x&r.mask != r.value {
				continue
			}
			total++
			if compareArg(x, a) {
				matched++
			}
		}
		want := coverSome
		switch matched {
		case 0:
			want = coverNone
		case total:
			want = coverAll
		}
		if got := argCoverage(r, a); got != want {
			t.Fatalf("range mask %#x value %#x, %s %#x/%#x: coverage %d, want %d (%d of %d)", r.mask, r.value, a.Op, a.Value, a.ValueTwo, got, want, matched, total)
		}
	}
}

// compareArg is one comparison as libseccomp evaluates it.
func compareArg(x uint64, a specs.LinuxSeccompArg) bool {
	switch a.Op {
	case specs.OpNotEqual:
		return x != a.Value
	case specs.OpLessThan:
		return x < a.Value
	case specs.OpLessEqual:
		return x <= a.Value
	case specs.OpEqualTo:
		return x == a.Value
	case specs.OpGreaterEqual:
		return x >= a.Value
	case specs.OpGreaterThan:
		return x > a.Value
	}
	return x&a.Value == a.ValueTwo
}

func TestCompareDefaultActions(t *testing.T) {
	for _, c := range []struct {
		action, verdict, errno string
	}{
		{"SCMP_ACT_ALLOW", VerdictAllowed, ""},
		{"SCMP_ACT_LOG", VerdictAllowed, ""},
		{"SCMP_ACT_ERRNO", VerdictDenied, "EPERM"},
		{"SCMP_ACT_KILL", VerdictDenied, ""},
		{"SCMP_ACT_TRAP", VerdictDenied, ""},
		{"SCMP_ACT_TRACE", VerdictDenied, ""},
		{"SCMP_ACT_NOTIFY", VerdictDenied, ""},
	} {
		cp := parseProfile(t, `{"defaultAction": "`+c.action+`", "syscalls": [{"names": ["getpid", "getppid"], "action": "SCMP_ACT_ALLOW"}]}`)
		cmp, err := Compare(cp, Needs{scmp.X86_64: {{Key: "read"}, {Key: "getpid"}}}, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := cmp.Arches[0]
		if a.Allowed < 1 {
			t.Errorf("%s: getpid, which a rule allows, not allowed: %+v", c.action, a)
		}
		d := compareOne(t, cp, scmp.X86_64, "read", CompareOptions{})
		if d.Verdict != c.verdict || d.Errno != c.errno {
			t.Errorf("%s: read %s %q, want %s %q", c.action, d.Verdict, d.Errno, c.verdict, c.errno)
		}
		if allowing := c.verdict == VerdictAllowed; a.DefaultAllows != allowing || slices.Equal(a.Unused, []string{"getppid"}) == allowing {
			t.Errorf("%s: default allows %v, unused %v", c.action, a.DefaultAllows, a.Unused)
		}
	}
}

func TestCompareUnused(t *testing.T) {
	cp := parseProfile(t, `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
		{"names": ["read", "write", "_llseek", "getppid"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
		{"names": ["kill"], "action": "SCMP_ACT_ERRNO"}
	]}`)
	c, err := Compare(cp, Needs{scmp.X86_64: {{Key: "write"}, {Key: "getppid"}}}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// _llseek is no x86_64 syscall; mount needs a capability; kill is denied
	if got := c.Arches[0].Unused; !slices.Equal(got, []string{"read"}) {
		t.Errorf("unused %v, want [read]", got)
	}
	c, _ = Compare(cp, Needs{scmp.X86_64: {{Key: "write"}}}, CompareOptions{Caps: []string{"CAP_SYS_ADMIN"}})
	if got := c.Arches[0].Unused; !slices.Equal(got, []string{"getppid", "mount", "read"}) {
		t.Errorf("unused with CAP_SYS_ADMIN %v", got)
	}
}

func TestReadContainerProfileErrors(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"syntax", "{\n  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n  \"syscalls\": [}\n", "p.json:3:16: JSON: invalid character '}'"},
		{"truncated", "{\n  \"defaultAction\": ", "p.json:2:20: JSON: unexpected end of file"},
		{"type", "{\n  \"defaultAction\": 1\n}", "p.json:2:20: JSON: LinuxSeccomp.defaultAction: a number, want specs.LinuxSeccompAction"},
		{"no default", `{"syscalls": []}`, `no "defaultAction"`},
		{"action", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n\"syscalls\": [\n{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALOW\"}]}", `p.json:3: syscalls[0].action: unknown action "SCMP_ACT_ALOW"`},
		{"arch", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n\"architectures\": [\"SCMP_ARCH_AMD64\"]}", `p.json:2: architectures[0]: unknown architecture "SCMP_ARCH_AMD64"`},
		{"sub-arch", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n\"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\",\n\"subArchitectures\": [\"SCMP_ARCH_I386\"]}]}", `p.json:3: archMap[0].subArchitectures[0]: unknown architecture "SCMP_ARCH_I386"`},
		{"includes arch", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["x86_64"]}}]}`, `includes.arches[0]: unknown architecture "x86_64"`},
		{"both arch lists", `{"defaultAction": "SCMP_ACT_ERRNO", "architectures": ["SCMP_ARCH_X86_64"], "archMap": [{"architecture": "SCMP_ARCH_X86_64"}]}`, `both "architectures" and "archMap"`},
		{"index", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 6, "value": 0, "op": "SCMP_CMP_EQ"}]}]}`, "args[0].index: 6"},
		{"op", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQUAL"}]}]}`, `unknown operator "SCMP_CMP_EQUAL"`},
		{"name and names", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"name": "read", "names": ["write"], "action": "SCMP_ACT_ALLOW"}]}`, `both "name" and "names"`},
		{"cap", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["SYS_ADMIN"]}}]}`, `"SYS_ADMIN": capabilities are named as CAP_SYS_ADMIN`},
		{"min kernel", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "4"}}]}`, `invalid kernel version`},
		{"two values", `{"defaultAction": "SCMP_ACT_ERRNO"} {}`, "p.json:1:37: more than one JSON value"},
	} {
		_, err := parseContainerProfile("p.json", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBadProfile) {
			t.Errorf("%s: %v, want an ErrBadProfile containing %q", c.name, err, c.want)
		}
	}
	cp, err := parseContainerProfile("p.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscals": []}`))
	if err != nil || len(cp.Warnings) != 1 || !strings.Contains(cp.Warnings[0], `unknown field "syscals"`) {
		t.Errorf("unknown field: %v, warnings %q", err, cp.Warnings)
	}
	if _, err := ReadContainerProfile(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, ErrBadProfile) {
		t.Errorf("missing file: %v", err)
	}
}

// The fixture is Docker's real default: a committed Python baseline that
// unshares is denied there unless the container keeps CAP_SYS_ADMIN, and
// the rule lines point into the fixture.
func TestCompareDockerDefault(t *testing.T) {
	cp, err := ReadContainerProfile(filepath.Join(profilesDir, "docker-default.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Lines) != len(cp.Spec.Syscalls) {
		t.Fatalf("%d rule lines for %d rules", len(cp.Lines), len(cp.Spec.Syscalls))
	}
	p, err := baseline.LoadStackFor(baseline.Selector{"os": "debian-12", "python": "3.11"}, "../suites/baselines/python/isolate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(cp, NeedsOfProfile(p), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Arches) != 1 || c.Arches[0].Arch != scmp.X86_64 {
		t.Fatalf("arches %+v", c.Arches)
	}
	a := c.Arches[0]
	var denied []string
	for _, d := range a.Denied {
		denied = append(denied, d.Syscall)
	}
	if !slices.Equal(denied, []string{"unshare(none)"}) || len(a.Conditional) != 0 {
		t.Fatalf("denied %v, conditional %+v; want only unshare(none)", denied, a.Conditional)
	}
	d := a.Denied[0]
	if !strings.HasSuffix(d.File, "isolate.yaml") || d.Line == 0 || !slices.Equal(d.AllowedWith, []string{"CAP_SYS_ADMIN"}) || d.Errno != "EPERM" {
		t.Errorf("unshare: %+v", d)
	}
	if a.Allowed != a.Needed-1 || len(a.Unused) < 200 || slices.Contains(a.Unused, "read") || !slices.Contains(a.Unused, "accept4") {
		t.Errorf("allowed %d of %d, %d unused", a.Allowed, a.Needed, len(a.Unused))
	}
	if !slices.Equal(c.UnusedArches, []scmp.Arch{scmp.I386, scmp.X32}) {
		t.Errorf("unused arches %v", c.UnusedArches)
	}
	c, _ = Compare(cp, NeedsOfProfile(p), CompareOptions{Caps: []string{"CAP_SYS_ADMIN"}})
	if c.DeniedCount()+c.ConditionalCount() != 0 {
		t.Errorf("with CAP_SYS_ADMIN: %+v", c.Arches)
	}
}

// FuzzParseContainerProfile: any input is refused with a ProfileError or
// read into a profile that Compare evaluates on every arch without a
// panic.
func FuzzParseContainerProfile(f *testing.F) {
	for _, name := range []string{"docker-default.json", "permissive.json"} {
		data, err := os.ReadFile(filepath.Join(profilesDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 0, "value": 2, "op": "SCMP_CMP_EQ"}]}]}`))
	needs := Needs{}
	for _, arch := range []scmp.Arch{scmp.X86_64, scmp.I386, scmp.X32, scmp.AArch64, scmp.ARM, scmp.RISCV64, scmp.PPC64LE, scmp.S390X} {
		for _, key := range []string{"read", "socket", "socket(AF_INET)", "openat(write)", "1000"} {
			needs[arch] = append(needs[arch], Need{Key: key})
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := parseContainerProfile("f.json", data)
		if err != nil {
			var pe *ProfileError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is no ProfileError", err)
			}
			return
		}
		c, err := Compare(cp, needs, CompareOptions{Kernel: "5.4"})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.Arches {
			if a.Allowed+len(a.Denied)+len(a.Conditional) != a.Needed {
				t.Fatalf("%s: %d+%d+%d decisions for %d needs", a.Arch, a.Allowed, len(a.Denied), len(a.Conditional), a.Needed)
			}
		}
	})
}
