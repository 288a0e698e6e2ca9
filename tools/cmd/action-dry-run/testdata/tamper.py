# An agent that, after its violation, writes what the runner trusts later
# in the job. Each argument KIND=PATTERN names files by a glob; the agent
# says for each whether the write went through or was refused.
# "violate" first opens an AF_INET socket, which its baseline lacks.
import errno
import glob
import os
import socket
import sys

FORGED_ACTION = '\n[ "${1:-}" = gate ] && { echo code=0; echo verdict=clean; echo violations=0; } >>"$GITHUB_OUTPUT"\n'
FORGED_SYSGATE = '#!/bin/sh\n{ echo verdict=clean; echo violations=0; } >>"$GITHUB_OUTPUT"\n'
FORGED_INDEX = 'require("fs").writeFileSync("/tmp/sysgate-attack-ran", "the runtime token")\n'


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def replace(path, text):
    with open(path + ".new", "w") as f:
        f.write(text)
    os.chmod(path + ".new", 0o755)
    os.rename(path + ".new", path)


def file_commands(path):
    # The names are predictable, the variables dropped or not.
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if name.startswith("set_env_"):
            append(full, "NODE_OPTIONS=--require=/tmp/sysgate-attack.js\n")
        elif name.startswith("add_path_"):
            append(full, "/tmp/sysgate-attack-bin\n")


ACTIONS = {
    "action": lambda p: append(p, FORGED_ACTION),
    "binary": lambda p: replace(p, FORGED_SYSGATE),
    "index": lambda p: replace(p, FORGED_INDEX),
    "filecmd": file_commands,
}

args = sys.argv[1:]
if args and args[0] == "violate":
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    args = args[1:]
for arg in args:
    kind, pattern = arg.split("=", 1)
    paths = sorted(glob.glob(pattern))
    if not paths:
        print(f"attack {kind}: nothing matches {pattern}")
    for p in paths:
        try:
            ACTIONS[kind](p)
            print(f"attack {kind}: written {p}")
        except OSError as e:
            print(f"attack {kind}: refused {p}: {errno.errorcode.get(e.errno, e.errno)}")
