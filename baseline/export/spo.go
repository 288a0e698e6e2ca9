package export

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The Kubernetes Security Profiles Operator's SeccompProfile resource.
// Field names and enums as in kubernetes-sigs/security-profiles-operator,
// api/seccompprofile/v1beta1/seccompprofile_types.go (SeccompProfileSpec,
// Syscall, Arg; checked at commit 943e127ab56eb5040d4063ba03ffe847ff89b129):
// the spec has no defaultErrnoRet (refused syscalls get the runtime's
// EPERM), and a rule has neither a comment nor a per-arch condition.
const (
	SPOAPIVersion = "security-profiles-operator.x-k8s.io/v1beta1"
	SPOKind       = "SeccompProfile"
)

// Annotations ExportSPO writes.
const (
	// SPOAnnotationBaselines lists the baseline files the profile was
	// exported from, bases first.
	SPOAnnotationBaselines = "sysgate/baselines"
	// SPOAnnotationArchOnly lists, per set of arches, the syscalls only
	// those arches' lists allow: the spec's rules are the union of all.
	SPOAnnotationArchOnly = "sysgate/arch-only"
)

// SPOProfile is a SeccompProfile resource.
type SPOProfile struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	Metadata   SPOMetadata `yaml:"metadata"`
	Spec       SPOSpec     `yaml:"spec"`
}

// SPOMetadata is the part of Kubernetes' ObjectMeta the export sets.
type SPOMetadata struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// SPOSpec is SeccompProfileSpec.
type SPOSpec struct {
	DefaultAction string       `yaml:"defaultAction"`
	Architectures []string     `yaml:"architectures,omitempty"`
	Syscalls      []SPOSyscall `yaml:"syscalls,omitempty"`
}

// SPOSyscall is one rule. Comment is not a field of the resource: ExportSPO
// writes it as a YAML comment above the rule.
type SPOSyscall struct {
	Names   []string `yaml:"names"`
	Action  string   `yaml:"action"`
	Args    []SPOArg `yaml:"args,omitempty"`
	Comment string   `yaml:"-"`
}

// SPOArg is Arg: a masked comparison, as in the OCI export.
type SPOArg struct {
	Index    uint   `yaml:"index"`
	Value    uint64 `yaml:"value,omitempty"`
	ValueTwo uint64 `yaml:"valueTwo,omitempty"`
	Op       string `yaml:"op"`
}

// SPOOptions tune ExportSPO.
type SPOOptions struct {
	// Name is metadata.name, a DNS-1123 subdomain (SPOName makes one of
	// an agent's name). Required.
	Name string
	// Namespace is metadata.namespace, a DNS-1123 label; "" leaves it to
	// kubectl's namespace.
	Namespace string
	// Default is the action for syscalls outside the profile: ActionErrno
	// (the default when zero), ActionKill or ActionLog.
	Default baseline.Action
}

// ExportSPO renders p as a SeccompProfile in YAML: each rule with the
// reasons of its syscalls as a comment above it.
func ExportSPO(p *baseline.Profile, opts SPOOptions) ([]byte, error) {
	prof, err := buildSPO(p, opts)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := doc.Encode(prof); err != nil {
		return nil, fmt.Errorf("export spo: %w", err)
	}
	if rules := mappingValue(mappingValue(&doc, "spec"), "syscalls"); rules != nil {
		for i, r := range rules.Content {
			r.HeadComment = spoComment(prof.Spec.Syscalls[i].Comment)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("export spo: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("export spo: %w", err)
	}
	return b.Bytes(), nil
}

// mappingValue returns the value of key in a mapping node, nil when n is
// not a mapping or lacks it.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// spoComment makes a one-line YAML comment of each "; "-joined reason.
func spoComment(c string) string {
	if c == "" {
		return ""
	}
	return "# " + strings.ReplaceAll(strings.ReplaceAll(c, "\n", " "), "; ", "\n# ")
}

// buildSPO returns the resource ExportSPO renders. Rules are built as
// buildOCI's, with every arch in one scope: a syscall any arch allows is
// in the union, with its classes only when no arch allows it
// argument-blind; SPOAnnotationArchOnly says which syscalls only some
// arches' lists have.
func buildSPO(p *baseline.Profile, opts SPOOptions) (*SPOProfile, error) {
	if err := checkDNSName(opts.Name, 253, true); err != nil {
		return nil, fmt.Errorf("export spo: metadata.name: %w", err)
	}
	if opts.Namespace != "" {
		if err := checkDNSName(opts.Namespace, 63, false); err != nil {
			return nil, fmt.Errorf("export spo: metadata.namespace: %w", err)
		}
	}
	prof := &SPOProfile{APIVersion: SPOAPIVersion, Kind: SPOKind, Metadata: SPOMetadata{Name: opts.Name, Namespace: opts.Namespace}}
	switch opts.Default {
	case 0, baseline.ActionErrno:
		prof.Spec.DefaultAction = string(specs.ActErrno)
	case baseline.ActionKill:
		prof.Spec.DefaultAction = string(specs.ActKillProcess)
	case baseline.ActionLog:
		prof.Spec.DefaultAction = string(specs.ActLog)
	default:
		return nil, fmt.Errorf("export spo: unknown default action %s", opts.Default)
	}
	gs, err := grantsOf(p, "export spo")
	if err != nil {
		return nil, err
	}
	for _, arch := range p.Arches() {
		prof.Spec.Architectures = append(prof.Spec.Architectures, string(ociArches[arch].spec))
	}
	sort.Strings(prof.Spec.Architectures)
	all := func(scmp.Arch) string { return "" }
	for _, r := range groupRules(mergeGrants(gs, all), func(mergedGrant) string { return "" }) {
		rule := SPOSyscall{Names: r.names, Action: string(specs.ActAllow), Comment: r.comment}
		for _, a := range r.first.args {
			rule.Args = append(rule.Args, SPOArg{Index: a.Index, Value: a.Value, ValueTwo: a.ValueTwo, Op: string(a.Op)})
		}
		prof.Spec.Syscalls = append(prof.Spec.Syscalls, rule)
	}
	prof.Metadata.Annotations = map[string]string{SPOAnnotationBaselines: strings.Join(p.Files(), " ")}
	if only := archOnly(p); only != "" {
		prof.Metadata.Annotations[SPOAnnotationArchOnly] = only
	}
	return prof, nil
}

// archOnly lists the entries (syscalls and classes) that some but not all
// of p's arches allow, grouped by those arches:
// "x86_64: open, poll; aarch64: ppoll".
func archOnly(p *baseline.Profile) string {
	arches := p.Arches()
	on := map[string][]string{}
	for _, arch := range arches {
		for _, e := range p.Entries(arch) {
			on[e.Name] = append(on[e.Name], arch.String())
		}
	}
	bySet := map[string][]string{}
	for key, as := range on {
		if len(as) < len(arches) {
			set := strings.Join(as, "+")
			bySet[set] = append(bySet[set], key)
		}
	}
	sets := make([]string, 0, len(bySet))
	for s := range bySet {
		sets = append(sets, s)
	}
	sort.Strings(sets)
	parts := make([]string, 0, len(sets))
	for _, s := range sets {
		sort.Strings(bySet[s])
		parts = append(parts, s+": "+strings.Join(bySet[s], ", "))
	}
	return strings.Join(parts, "; ")
}

// Kubernetes' DNS-1123 names (k8s.io/apimachinery validation): a label,
// and a subdomain of dot-separated labels.
var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	notLabelRune = regexp.MustCompile(`[^a-z0-9]+`)
)

// SPOName makes a Kubernetes object name (a DNS-1123 subdomain of at most
// 253 characters) of s, an agent's name: lower case, each dot-separated
// part's runs of other characters as one "-", empty parts dropped. ""
// when nothing is left.
func SPOName(s string) string {
	var labels []string
	for _, part := range strings.Split(strings.ToLower(s), ".") {
		if l := strings.Trim(notLabelRune.ReplaceAllString(part, "-"), "-"); l != "" {
			labels = append(labels, l)
		}
	}
	out := strings.Join(labels, ".")
	if len(out) > 253 {
		out = strings.TrimRight(out[:253], "-.")
	}
	return out
}

// checkDNSName checks a DNS-1123 subdomain (dots allowed) or label of at
// most max characters.
func checkDNSName(s string, max int, dots bool) error {
	what, re := "a DNS-1123 label (lower-case letters, digits and '-')", dnsLabel
	if dots {
		what, re = "a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')", dnsSubdomain
	}
	if s == "" {
		return fmt.Errorf("empty: want %s", what)
	}
	if len(s) <= max && re.MatchString(s) {
		return nil
	}
	fixed := SPOName(s)
	if !dots {
		fixed = strings.ReplaceAll(fixed, ".", "-")
	}
	if fixed != "" && len(fixed) <= max {
		return fmt.Errorf("%q is not %s of at most %d characters; e.g. %q", s, what, max, fixed)
	}
	return fmt.Errorf("%q is not %s of at most %d characters", s, what, max)
}
