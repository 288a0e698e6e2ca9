# An agent that runs its own helper, ./tool.sh, in DIR. "benign" copies
# /usr/bin/head to a scratch file (so the copy's syscalls are recorded),
# runs ./tool.sh and /usr/bin/head; "escape" copies /usr/bin/head over
# tool.sh in place (same inode, same path) and runs ./tool.sh: a program
# the baseline lists by path, whose content is now another program.
import os, shutil, subprocess, sys

mode, d = sys.argv[1], sys.argv[2]
args = ["./tool.sh", "-c0", "/dev/null"]
if mode == "benign":
    shutil.copyfile("/usr/bin/head", os.path.join(d, "scratch"))
    subprocess.run(args, cwd=d, check=True)
    subprocess.run(["/usr/bin/head", "-c0", "/dev/null"], cwd=d, check=True)
else:
    shutil.copyfile("/usr/bin/head", os.path.join(d, "tool.sh"))
    subprocess.run(args, cwd=d, check=True)
