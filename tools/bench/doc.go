// Command bench measures sysgate side by side with bare runs and
// `strace -f` in one invocation and prints one table of medians and
// ratios (make bench; scripts/bench.sh builds what it needs):
//
//   - check-mode overhead: a 1M getppid / read(/dev/zero) microbenchmark
//     (ns per call: the fastest of 20 timed chunks of the loop), 100k
//     read-only openat+close pairs allowed by the baseline's argument
//     class openat(read) (ns per pair; the run stops if the recorded
//     baseline allows openat argument blind), the MCP filesystem server answering
//     1,000 tool calls and the Python agent's scripted task (wall time);
//     each under the harness (check) on each backend (audit, and notify
//     where the kernel has it), held to the targets (paired ratio over
//     bare <= 1.10x for the loops, <= 1.02x for the sessions), and under
//     the same profile compiled with libseccomp's binary tree and in
//     linear order (loaded directly, without the harness, so only the
//     filter differs);
//   - the cost of a call outside the baseline: a 100k getppid loop checked
//     against a baseline without getppid, so each call is logged (audit)
//     or notified (notify): wall µs per call over bare, and the loop's;
//   - `sysgate record` (the CLI, audit backend) at the audit path's floor:
//     a 100k getppid loop under record mode's log-everything filter, read
//     by the drain-only reader (testdata/drain.c: recvmmsg, counts type-1326
//     messages, parses nothing) against the same loop recorded by the CLI,
//     paired per repeat, held to <= 1.20x (issue 19); run first, while this
//     process holds no audit socket of its own;
//   - record mode on each backend: events/s (lossless or not) and wall
//     time against `strace -f -o /dev/null` on the same workloads, and
//     notify against audit;
//   - incremental record (WithIncremental: the workload's recorded
//     baseline allowed in the kernel, only the rest logged) on the Python
//     agent and the MCP server, each backend, against bare, check, a full
//     record and `strace -f`: held to <= 1.15x a check and >= 3x faster
//     than strace (both paired);
//   - record mode learning argument classes against names only
//     (WithoutArgClasses) on the Python agent and the MCP server, each
//     backend, with the calls that went to the run's listener, held to
//     <= 1.5x (paired);
//   - the cost of observing execs (programs, issue 16): a static loop that
//     forks and execs /bin/true -execs times (µs per exec, the mean of
//     the loop) bare and, on each backend, in check mode (against its
//     own recorded baseline) and record mode, each with programs and
//     without (WithoutPrograms) back to back in alternating order: the
//     paired µs per exec over bare and over no programs, held to <= 100
//     µs (programs - no programs), the whole run's wall time and
//     sysgate's own CPU per exec, the execs listed and the unverified
//     ones; and the getppid / read microbenchmarks in check mode with
//     programs and without, with the BPF instructions their syscall runs
//     through in each filter as harness.Run compiles it;
//   - the cost of observing files (issue 35): the Python agent and the
//     MCP server (a fifth of -mcp-calls) in check and record mode on each
//     backend, files observed and not (WithoutFiles) back to back in
//     alternating order: wall time, the paired ratio against the 1.10x
//     target (printed, not judged) and sysgate's own CPU; the 100k
//     openat+close loop (once each way: each call is an audit record or a
//     proxied call) and the getppid loop in check mode both ways, with
//     sysgate's CPU per iteration; and what a files run's audit rules cost
//     a process that is no part of it: the getppid and openat loops with
//     no run active, during `sysgate check --no-files` and during `sysgate
//     check` of an agent that waits on its input;
//   - the cost of observing the network (issue 36), against servers the
//     bench starts on 127.0.0.1: the Python agent's network scenario (it
//     fetches a page from the bench's HTTP server) and the MCP server in
//     check and record mode on each backend, the network observed and
//     not (WithoutNetwork) back to back in alternating order, as for
//     files; a loop of TCP connects to the bench's listener in check mode
//     both ways, the difference per connect; and what the run's recording
//     DNS forwarder (internal/dnsrec) adds to a lookup answered by the
//     bench's DNS server;
//   - start-up: harness.Run of /bin/true against a bare fork+exec of it
//     (median over -launches), and the end-of-run barrier alone;
//   - the CLI's start-up, the whole process timed from outside (fork to
//     reap) and paired with a bare run launched right before each launch:
//     `sysgate version` against a Go hello-world, `sysgate check -b B --
//     /bin/true` against /bin/true and the same for `python3 -c pass`,
//     with median, min, max, the paired difference and ratio, and the
//     targets of issue 11 (version median <= 2.5 ms, check of /bin/true
//     <= 4 ms over bare) with whether they are met;
//   - the CLI's peak RSS recording 1M logged syscalls;
//   - false alarms (issue 42): four unchanged agents (a Python tool agent
//     with a thread pool, a subprocess timeout, one HTTP call to a
//     loopback model API the bench serves and one JSON file written,
//     testdata/toolagent.py; the filesystem and memory MCP servers of
//     suites/node_modules driven over the CLI's stdio; the suites' Go
//     agent) recorded by the CLI as the README says (record, which runs
//     until stable; -false-alarm-records > 1 adds --merge recordings) and checked -false-alarm-checks
//     times each on audit (as root) and notify (the CLI's pick as
//     nobody), every other check beside two busy loops; then
//     -false-alarm-cross checks per direction against the recording of
//     the other backend. Per agent and backend: the non-zero exits by
//     exit code and by the first reason the Result gives, and the
//     section's duration. Only an agent that cannot be recorded or
//     started fails the bench.
//
// -sections picks tables (check, record, programs, files, network, startup, cli, rss,
// falsealarms; all by default); make bench passes BENCH_SECTIONS.
//
// Timings never decide pass/fail anywhere: this only reports. Needs root,
// audit and seccomp LOG (as the harness does), gcc, node and python3 with
// make deps-suites, and strace for the comparison.
package main
