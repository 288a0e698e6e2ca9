package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline/export"
)

func init() {
	register("export spo", "write baselines as a Kubernetes Security Profiles Operator SeccompProfile resource", (*Command).runExportSPO)
}

func (c *Command) runExportSPO(args []string) int {
	fs := c.flagSet("export spo", "")
	ex := c.exportFlags(fs, "resource", "errno (EPERM: a SeccompProfile has no errno setting)")
	name := fs.String("name", "", "the `NAME` of the resource (metadata.name, a DNS-1123 subdomain; SPO installs the profile as NAME.json); default the baselines' agent name made one, else the first baseline's file name")
	namespace := fs.String("namespace", "", "the `NAMESPACE` of the resource (metadata.namespace); default none: kubectl's current one")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(c.Stderr, `
A SeccompProfile has no per-arch rules and no comments: its rules allow the
union of the arches' lists (the annotation sysgate/arch-only names what only
some arches allow; export oci keeps them apart), and each rule's reasons are
YAML comments above it.
`)
	}
	p, def, code, ok := ex.load(args)
	if !ok {
		return code
	}
	if *name == "" {
		agent := p.Agent()
		if agent == "" {
			agent = strings.TrimSuffix(filepath.Base(ex.files[0]), filepath.Ext(ex.files[0]))
		}
		if *name = export.SPOName(agent); *name == "" {
			return c.errorf(ExitUsage, "export spo: no name can be made of %q: give --name", agent)
		}
	}
	data, err := export.ExportSPO(p, export.SPOOptions{Name: *name, Namespace: *namespace, Default: def})
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	return ex.write(data)
}
