package update

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// writeNetworkChanges lists a file's added and removed network entries,
// risky ones marked: each widens where the agent may send.
func writeNetworkChanges(b *strings.Builder, f FileChange) {
	if len(f.AddedNetwork)+len(f.RemovedNetwork) == 0 {
		return
	}
	b.WriteString("Network:\n\n")
	for _, e := range f.AddedNetwork {
		s := "new " + ci.NetworkEntryText(e)
		if e.Risk.Risky() {
			s += " **(" + untrusted.Markdown(e.Risk.Label(e.Level)) + "; give it a reason)**"
		}
		fmt.Fprintf(b, "- %s\n", s)
	}
	for _, e := range f.RemovedNetwork {
		fmt.Fprintf(b, "- removed %s: no run needed it\n", ci.NetworkEntryText(e))
	}
	b.WriteString("\n")
}

// writeRiskyNetwork lists the risky network entries an update adds, at
// the top of the pull request: each was written with the placeholder
// reason, which validate --strict refuses.
func (u *Update) writeRiskyNetwork(b *strings.Builder) {
	risky := riskyAdded(u, func(f FileChange) []baseline.NetworkFinding { return f.AddedNetwork },
		func(f baseline.NetworkFinding) risk.Class { return f.Risk })
	if len(risky) == 0 {
		return
	}
	b.WriteString("### ⚠️ Risky destinations: a reason is required\n\n")
	fmt.Fprintf(b, "Cloud metadata, container sockets, listeners beyond loopback, mail, shell and DNS ports: each was written with the placeholder reason `%s`. Replace it with why the agent needs the destination, or fix the agent and drop the line.\n\n", baseline.UnreviewedReason)
	for _, r := range risky {
		fmt.Fprintf(b, "- %s: %s **(%s)** at %s\n", untrusted.Markdown(r.agent), ci.NetworkEntryText(r.item), untrusted.Markdown(r.item.Risk.Label(r.item.Level)), ci.Location(r.item.File, r.item.Line))
	}
	b.WriteString("\n")
}
