import re, sys, os
cwd = sys.argv[2]
out = {}
def add(op, p):
    if not p.startswith('/'):
        p = os.path.join(cwd, p)
    p = os.path.normpath(p)
    out[(op, p)] = out.get((op, p), 0) + 1
for line in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m: continue
    pid, call, args, rc = m.groups()
    if int(rc) < 0: continue
    strs = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
    if not strs: continue
    if call in ('openat', 'open', 'openat2', 'creat'):
        p = strs[0]
        w = call == 'creat' or re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND', args)
        add('write' if w else 'read', p)
    elif call in ('execve', 'execveat'):
        add('exec', strs[0])
    elif call in ('unlink', 'unlinkat', 'rmdir'):
        add('delete', strs[0])
    elif call in ('rename', 'renameat', 'renameat2'):
        add('delete', strs[0]); add('write', strs[1])
    elif call in ('mkdir', 'mkdirat', 'truncate', 'chmod', 'fchmodat', 'chown', 'fchownat', 'lchown'):
        add('write', strs[0])
    elif call in ('link', 'linkat', 'symlink', 'symlinkat'):
        add('write', strs[-1])
for (op, p), n in sorted(out.items()):
    print(op, n, p)
