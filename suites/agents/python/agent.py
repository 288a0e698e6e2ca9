#!/usr/bin/env python3
"""A tool-using agent for sysgate's suites, standard library only.

It replays a scripted plan of tool calls the way an agent loop does: pick the
next tool call, run it, record the observation, go on. No model is involved;
what matters to the gate is that the tools do real work (files, directories,
subprocesses, HTTP) through the real interpreter.

    python3 -I -B agent.py --workspace DIR --scenario read-only
    python3 -I -B agent.py --workspace DIR --scenario network --url http://127.0.0.1:PORT/
    python3 -I -B agent.py --workspace DIR --plan plan.json

Scenarios (each has its own committed baseline):
    read-only     list and read the workspace, run `git status` and `sh -c`
    write         read-only, then write a report and a directory of results
    network       fetch --url from a loopback HTTP server, save the body
    ipc           list the workspace, ask a local service at --connect
                  (a Unix socket path; HOST:PORT makes it TCP, the bite)
    isolate       read-only, then a subprocess that unshares its file table
                  (unshare(CLONE_FILES), as sandbox helpers do)
    fetch         fetch --url with the agent's own download tool, --fetch-tool
                  (a pinned copy of curl), save the body
Bite scenarios (the same work plus one new capability; the gate must fail):
    read-only+connect   read-only, then open a TCP connection to --connect HOST:PORT
    read-only+unshare   read-only, then a subprocess that calls unshare(2)
    isolate+userns      isolate, but the subprocess makes a user namespace
    fetch with --fetch-tool /usr/bin/curl: the same download through the
                        system's curl: the same syscalls, another program

The transcript (one JSON object per tool call) goes to stdout; the exit
status is 0 only if every step did what the plan expected.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import urllib.request


def tool_list_dir(ws, path="."):
    return sorted(os.listdir(os.path.join(ws, path)))


def tool_read_file(ws, path):
    with open(os.path.join(ws, path), encoding="utf-8") as f:
        text = f.read()
    return {"bytes": len(text.encode()), "lines": text.count("\n")}


def tool_write_file(ws, path, content):
    full = os.path.join(ws, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(content)
    return {"bytes": len(content.encode())}


def tool_run(ws, argv):
    # No optional locks: git status must not rewrite the index, or the
    # syscall set would depend on file timestamps (racy-git refreshes).
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    p = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError(f"{argv!r} exited {p.returncode}: {p.stderr.strip()}")
    return {"exit": p.returncode, "stdout": p.stdout}


def tool_fetch(ws, url, save_as=None):
    # Never through a proxy from the environment: the server is on loopback.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as resp:
        body = resp.read()
    if save_as:
        with open(os.path.join(ws, save_as), "wb") as f:
            f.write(body)
    return {"status": resp.status, "bytes": len(body)}


def tool_connect(ws, address):
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"HEAD / HTTP/1.0\r\n\r\n")
        first = s.recv(64)
    return {"connected": address, "first_bytes": len(first)}


def tool_ask(ws, address):
    """Send one request to a local service and read the first bytes back:
    over a Unix socket for a path, over TCP for HOST:PORT. The two differ
    only in the socket's address family."""
    if address.startswith("/"):
        family, target = socket.AF_UNIX, address
    else:
        host, port = address.rsplit(":", 1)
        family, target = socket.AF_INET, (host, int(port))
    s = socket.socket(family, socket.SOCK_STREAM)
    try:
        s.connect(target)
        s.sendall(b"HEAD / HTTP/1.0\r\n\r\n")
        first = s.recv(64)
    finally:
        s.close()
    return {"asked": address, "first_bytes": len(first)}


# unshare(flags) in a child interpreter, through ctypes: Python 3.11 has no
# os.unshare. The child only changes its own namespaces.
def unshare_child(flags):
    return (
        "import ctypes, os, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        f"rc = libc.unshare({flags:#x})\n"
        "print('unshare', rc, os.strerror(ctypes.get_errno()) if rc else 'ok')\n"
    )


UNSHARE_CHILD = unshare_child(0x04000000)  # CLONE_NEWUTS

TOOLS = {
    "list_dir": tool_list_dir,
    "read_file": tool_read_file,
    "write_file": tool_write_file,
    "run": tool_run,
    "fetch": tool_fetch,
    "connect": tool_connect,
    "ask": tool_ask,
}


def read_only_plan():
    return [
        {"tool": "list_dir", "args": {}},
        {"tool": "read_file", "args": {"path": "README.md"}},
        {"tool": "list_dir", "args": {"path": "src"}},
        {"tool": "read_file", "args": {"path": "src/app.py"}},
        {"tool": "run", "args": {"argv": ["git", "status", "--porcelain"]}},
        {"tool": "run", "args": {"argv": ["sh", "-c", "wc -l README.md src/*.py | tail -n 1"]}},
    ]


def plan_for(args):
    s = args.scenario
    if s == "read-only":
        return read_only_plan()
    if s == "write":
        return read_only_plan() + [
            {"tool": "write_file", "args": {"path": "out/report.md", "content": "# Report\n\nThe workspace has a README and one module.\n"}},
            {"tool": "write_file", "args": {"path": "out/summary.json", "content": json.dumps({"files": 2}) + "\n"}},
            {"tool": "run", "args": {"argv": ["sh", "-c", "cat out/report.md out/summary.json | wc -c"]}},
            {"tool": "list_dir", "args": {"path": "out"}},
        ]
    if s == "network":
        need(args.url, "--url")
        return [
            {"tool": "list_dir", "args": {}},
            {"tool": "fetch", "args": {"url": args.url, "save_as": "fetched.txt"}},
            {"tool": "read_file", "args": {"path": "fetched.txt"}},
        ]
    if s == "read-only+connect":
        need(args.connect, "--connect")
        return read_only_plan() + [{"tool": "connect", "args": {"address": args.connect}}]
    if s == "ipc":
        need(args.connect, "--connect")
        return [
            {"tool": "list_dir", "args": {}},
            {"tool": "ask", "args": {"address": args.connect}},
        ]
    if s in ("isolate", "isolate+userns"):
        flags = 0x400 if s == "isolate" else 0x10000000  # CLONE_FILES, CLONE_NEWUSER
        return read_only_plan() + [{"tool": "run", "args": {"argv": [sys.executable, "-I", "-B", "-c", unshare_child(flags)]}}]
    if s == "fetch":
        need(args.url, "--url")
        need(args.fetch_tool, "--fetch-tool")
        return [
            {"tool": "list_dir", "args": {}},
            {"tool": "run", "args": {"argv": [args.fetch_tool, "-sS", "--noproxy", "*", "-o", "fetched.txt", args.url]}},
            {"tool": "read_file", "args": {"path": "fetched.txt"}},
        ]
    if s == "read-only+key":
        # A prompt-injected task: the same read_file tool, on the user's
        # SSH key instead of the workspace (os.path.join keeps an
        # absolute path).
        return read_only_plan() + [{"tool": "read_file", "args": {"path": os.path.expanduser("~/.ssh/id_rsa")}}]
    if s == "read-only+unshare":
        return read_only_plan() + [{"tool": "run", "args": {"argv": [sys.executable, "-I", "-B", "-c", UNSHARE_CHILD]}}]
    sys.exit(f"agent: unknown scenario {s!r}")


def need(value, flag):
    if not value:
        sys.exit(f"agent: this scenario needs {flag}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--scenario")
    ap.add_argument("--plan", help="a JSON file with a list of {tool, args} steps, instead of --scenario")
    ap.add_argument("--url")
    ap.add_argument("--connect")
    ap.add_argument("--fetch-tool", help="the download program of the fetch scenario")
    args = ap.parse_args()
    if args.plan:
        with open(args.plan, encoding="utf-8") as f:
            plan = json.load(f)
    elif args.scenario:
        plan = plan_for(args)
    else:
        ap.error("give --scenario or --plan")

    ok = True
    for i, step in enumerate(plan):
        record = {"step": i, "tool": step["tool"]}
        try:
            record["observation"] = TOOLS[step["tool"]](args.workspace, **step.get("args", {}))
        except Exception as e:  # an agent loop reports a failed tool and stops
            record["error"] = f"{type(e).__name__}: {e}"
            ok = False
        print(json.dumps(record, sort_keys=True), flush=True)
        if not ok:
            break
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
