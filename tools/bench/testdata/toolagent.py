#!/usr/bin/env python3
"""A small tool agent, as a user would write one, for the false-alarm bench.

It does the same thing on every run: read the workspace's files with a pool
of 4 threads, run `git log` with a timeout, send what it read to a "model
API" over HTTP, and write the answer as JSON. Nothing in it depends on time,
so any difference between two runs' syscalls comes from scheduling alone.

    python3 -I -B toolagent.py --workspace DIR --api http://127.0.0.1:PORT/v1/chat
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import urllib.request


def read(path):
    with open(path, encoding="utf-8") as f:
        return path, len(f.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--api", required=True)
    args = ap.parse_args()
    ws = args.workspace
    paths = []
    for root, dirs, files in os.walk(ws):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        paths += [os.path.join(root, f) for f in sorted(files)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        sizes = dict(pool.map(read, paths))
    log = subprocess.run(["git", "log", "--oneline", "-1"], cwd=ws, capture_output=True, text=True, timeout=10, check=True)
    body = json.dumps({"messages": [{"role": "user", "content": f"{len(sizes)} files; head {log.stdout.split()[1:]}"}]}).encode()
    req = urllib.request.Request(args.api, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        answer = json.load(resp)
    os.makedirs(os.path.join(ws, "out"), exist_ok=True)
    with open(os.path.join(ws, "out", "answer.json"), "w", encoding="utf-8") as f:
        json.dump({"files": sizes, "answer": answer}, f, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
