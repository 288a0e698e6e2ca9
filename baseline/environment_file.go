package baseline

import (
	"bytes"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/internal/scmp"
)

// EnvSection is one arch's fingerprint in a baseline file's environment
// block.
type EnvSection struct {
	Arch scmp.Arch
	Line int
	Env  Environment
}

// EnvironmentFor returns the file's fingerprint for arch.
func (d *Document) EnvironmentFor(arch scmp.Arch) (Environment, bool) {
	for _, s := range d.Environment {
		if s.Arch == arch {
			return s.Env, true
		}
	}
	return Environment{}, false
}

// SetEnvironment replaces the file's fingerprint for arch (a zero one
// removes it).
func (d *Document) SetEnvironment(arch scmp.Arch, env Environment) {
	env = env.Clone()
	env.normalize()
	for i := range d.Environment {
		if d.Environment[i].Arch == arch {
			if env.IsZero() {
				d.Environment = append(d.Environment[:i], d.Environment[i+1:]...)
			} else {
				d.Environment[i].Env = env
			}
			return
		}
	}
	if !env.IsZero() {
		d.Environment = append(d.Environment, EnvSection{Arch: arch, Env: env})
		sortEnvSections(d.Environment)
	}
}

func sortEnvSections(s []EnvSection) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Arch.String() < s[j-1].Arch.String(); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// environment reads the block:
//
//	environment:
//	  x86_64:
//	    kernel: 6.18.0-1-amd64
//	    os: debian 12
//	    libc: glibc 2.36
//	    runtimes:
//	      - python 3.11.7 /usr/bin/python3.11
//
// kernel, os and libc take one value or a list.
func (p *parser) environment(doc *Document, val *yaml.Node) {
	if val.Kind != yaml.MappingNode {
		p.add(val, KindSchema, "environment must map an architecture (x86_64, aarch64, ...) to its fingerprint")
		return
	}
	seen := map[scmp.Arch]bool{}
	for i := 0; i+1 < len(val.Content); i += 2 {
		key, body := val.Content[i], val.Content[i+1]
		arch, name, ok := p.archKey(key, seen, "environment")
		if !ok {
			continue
		}
		if body.Kind != yaml.MappingNode {
			p.add(body, KindSchema, "environment %s must map kernel, os, libc and runtimes to their values", name)
			continue
		}
		sec := EnvSection{Arch: arch, Line: key.Line}
		for j := 0; j+1 < len(body.Content); j += 2 {
			k, v := body.Content[j], body.Content[j+1]
			p.dropComments(k)
			p.dropComments(v)
			switch k.Value {
			case "kernel":
				sec.Env.Kernel = p.envValues(v, "kernel")
			case "os":
				sec.Env.OS = p.envValues(v, "os")
			case "libc":
				sec.Env.Libc = p.envValues(v, "libc")
			case "runtimes":
				for _, s := range p.envValues(v, "runtimes") {
					r, err := ParseRuntime(s)
					if err != nil {
						p.add(v, KindSchema, "environment %s: %v", name, err)
						continue
					}
					sec.Env.Runtimes = append(sec.Env.Runtimes, r)
				}
			case "variables":
				sec.Env.Variables = append([]string{}, p.envValues(v, "variables")...)
				for _, kv := range sec.Env.Variables {
					if n, _, ok := strings.Cut(kv, "="); !ok || !slices.Contains(RuntimeVariables, n) {
						p.add(v, KindSchema, "environment %s: variables entry %q: want NAME=VALUE for one of %s", name, kv, strings.Join(RuntimeVariables, ", "))
					}
				}
			default:
				p.add(k, KindSchema, "environment %s: unknown key %q (known: kernel, os, libc, runtimes, variables)", name, k.Value)
			}
		}
		sec.Env.normalize()
		doc.Environment = append(doc.Environment, sec)
	}
	sortEnvSections(doc.Environment)
}

// envValues reads a scalar or a list of scalars.
func (p *parser) envValues(n *yaml.Node, what string) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if s, ok := p.scalar(n, what); ok {
			return []string{s}
		}
	case yaml.SequenceNode:
		var out []string
		for _, item := range n.Content {
			p.dropComments(item)
			if s, ok := p.scalar(item, what+" entry"); ok {
				out = append(out, s)
			}
		}
		return out
	default:
		p.add(n, KindSchema, "environment %s must be a value or a list of values", what)
	}
	return nil
}

// writeEnvironment writes the block Format puts under agent, so the
// fingerprint is the first thing a reviewer reads.
func writeEnvironment(b *bytes.Buffer, d *Document) {
	if len(d.Environment) == 0 {
		return
	}
	b.WriteString("environment:\n")
	for _, sec := range d.Environment {
		b.WriteString("  " + sec.Arch.String() + ":\n")
		field := func(key string, values []string) {
			switch len(values) {
			case 0:
			case 1:
				b.WriteString("    " + key + ": " + yamlString(values[0]) + "\n")
			default:
				b.WriteString("    " + key + ":\n")
				for _, v := range values {
					b.WriteString("      - " + yamlString(v) + "\n")
				}
			}
		}
		field("kernel", sec.Env.Kernel)
		field("os", sec.Env.OS)
		field("libc", sec.Env.Libc)
		if len(sec.Env.Runtimes) > 0 {
			b.WriteString("    runtimes:\n")
			for _, r := range sec.Env.Runtimes {
				b.WriteString("      - " + yamlString(r.String()) + "\n")
			}
		}
		switch {
		case sec.Env.Variables == nil:
		case len(sec.Env.Variables) == 0:
			// None of those that change what a runtime touches was
			// set. No line comment: fmt could not keep it.
			b.WriteString("    variables: []\n")
		default:
			b.WriteString("    variables:\n")
			for _, v := range sec.Env.Variables {
				b.WriteString("      - " + yamlString(v) + "\n")
			}
		}
	}
}
