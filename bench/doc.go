// Command bench measures sysgate side by side with bare runs and
// `strace -f` in one invocation and prints one table of medians and
// ratios (make bench; scripts/bench.sh builds what it needs):
//
//   - check-mode overhead: a 1M getppid / read(/dev/zero) microbenchmark
//     (ns per call: the fastest of 20 timed chunks of the loop), the MCP filesystem server answering
//     1,000 tool calls and the Python agent's scripted task (wall time);
//     each under the harness (check), and under the same profile compiled
//     with libseccomp's binary tree and in linear order (loaded directly,
//     without the harness, so only the filter differs);
//   - record mode: events/s (lossless or not) and wall time against
//     `strace -f -o /dev/null` on the same workloads;
//   - start-up: harness.Run of /bin/true against a bare fork+exec of it
//     (median over -launches), and the end-of-run barrier alone;
//   - the CLI's peak RSS recording 1M logged syscalls.
//
// Timings never decide pass/fail anywhere: this only reports. Needs root,
// audit and seccomp LOG (as the harness does), gcc, node and python3 with
// make deps-suites, and strace for the comparison.
package main
