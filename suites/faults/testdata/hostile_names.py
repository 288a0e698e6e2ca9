"""An agent whose process names are attacks on whoever reads the report.

hostile_names.py benign|escape DIR: both create a symlink in DIR named
with terminal escapes (clear the screen, set the window title) and
markdown that GitHub would render (<details>, an @mention), pointing at
/usr/bin/true; escape also runs true through it, with the name as its
argument too, so the name reaches the report as the exec's path, argv
and comm.
"""
import os
import subprocess
import sys

HOSTILE = "\x1b[2J\x1b]0;pwned\x07<details>@octocat"

mode, workdir = sys.argv[1], sys.argv[2]
link = os.path.join(workdir, HOSTILE)
if not os.path.lexists(link):
    os.symlink("/usr/bin/true", link)
if mode == "escape":
    subprocess.run([link, HOSTILE], check=True)
