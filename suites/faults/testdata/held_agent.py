# An agent kept in its workspace (the run's directory, its cwd) beside
# its helper ./tool.sh, which its baseline lists. "benign" writes out.txt
# and runs ./tool.sh; "escape" rewrites ./tool.sh (the same calls: open
# for writing, write) during the run and then runs it: a program of the
# repository the agent changed under its listed name.
import subprocess, sys

target = "out.txt" if sys.argv[1] == "benign" else "tool.sh"
with open(target, "w") as f:
    f.write("#!/bin/sh\necho changed by the agent\n")
subprocess.run(["./tool.sh"], check=True)
