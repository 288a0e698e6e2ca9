package cli

import (
	"encoding/json"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
)

func init() {
	register("baseline merge", "merge observation files (shards, runs, arches) into one", (*Command).runBaselineMerge)
}

func (c *Command) runBaselineMerge(args []string) int {
	fs := c.flagSet("baseline merge", "OBS.json...")
	out := fs.String("o", "", "write the merged observation to `FILE` (atomically); default stdout")
	mixed := fs.Bool("allow-mixed-agents", false, "merge observations of different agents instead of refusing")
	if code, ok := c.parseFileArgs(fs, args); !ok {
		return code
	}
	merged := baseline.NewObservation("")
	for _, path := range fs.Args() {
		o, err := baseline.ReadObservation(path)
		if err != nil {
			return c.errorf(ExitUsage, "merge: %v", err)
		}
		merge := merged.Merge
		if *mixed {
			merge = merged.MergeAllowMixed
		}
		if err := merge(o); err != nil {
			return c.errorf(ExitUsage, "%v (from %s; --allow-mixed-agents merges anyway)", err, path)
		}
	}
	if *out == "" || *out == "-" {
		data, err := json.MarshalIndent(merged, "", "  ")
		if err != nil {
			return c.errorf(ExitInconclusive, "merge: %v", err)
		}
		fmt.Fprintf(c.Stdout, "%s\n", data)
		return ExitOK
	}
	if err := baseline.WriteObservation(*out, merged); err != nil {
		return c.errorf(ExitInconclusive, "merge: %v", err)
	}
	return ExitOK
}
