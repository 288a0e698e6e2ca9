package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// phaseLaunches bounds the phase breakdown's launches: each prints its
// phases, so this is slower than the timed launches above.
const phaseLaunches = 50

// phaseBreakdown says where `sysgate check -b B -- /bin/true` spends its
// time beyond the bare command: each launch runs with SYSGATE_PHASES=1,
// which prints every phase of the CLI and of harness.Run on stderr; what
// is left of the whole process's wall time is the Go runtime's start,
// the report and the exit ("outside the phases").
func phaseBreakdown(ctx context.Context, c cliCommand, launches int) error {
	launches = min(launches, phaseLaunches)
	var order []string
	per := map[string]samples{}
	var outside, whole samples
	for range launches {
		cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
		cmd.Env = append(append([]string{}, c.env...), "SYSGATE_PHASES=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v: %s", c.name, err, stderr.String())
		}
		wall := ms(time.Since(start))
		sum := 0.0
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 5 || f[0] != "sysgate:" || f[1] != "phase" {
				continue
			}
			v, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return fmt.Errorf("%s: phase line %q: %v", c.name, sc.Text(), err)
			}
			if _, ok := per[f[2]]; !ok {
				order = append(order, f[2])
			}
			per[f[2]] = append(per[f[2]], v)
			sum += v
		}
		if len(order) == 0 {
			return fmt.Errorf("%s: printed no phases with SYSGATE_PHASES=1", c.name)
		}
		whole = append(whole, wall)
		outside = append(outside, wall-sum)
	}
	fmt.Printf("\n== Where %s spends its time (ms, median of %d launches with SYSGATE_PHASES=1; whole process %.3f)\n", c.name, launches, whole.median())
	tw := table()
	fmt.Fprintln(tw, "phase\tmedian\tmin\tmax\t")
	for _, name := range append(order, "outside the phases") {
		s := per[name]
		if name == "outside the phases" {
			s = outside
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t\n", name, s.median(), s.min(), s.max())
	}
	return tw.Flush()
}
