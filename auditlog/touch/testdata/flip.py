# A second thread flips the path buffer between a workspace file and the
# key while the main thread opens it 2000 times (issue 35). Prints how
# many opens reached the key, by the inode of the descriptor opened.
import ctypes, os, sys, threading

outside = sys.argv[1]
ws = os.getcwd()
key = os.path.join(outside, "secret")
mine = os.path.join(ws, "f" * (len(key) - len(ws) - 1))
assert len(mine) == len(key)
with open(mine, "w") as f:
    f.write("m")
key_ino = os.stat(key).st_ino
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(mine.encode(), len(mine) + 1)
a, b = mine.encode(), key.encode()
stop = False

def flip():
    while not stop:
        ctypes.memmove(buf, b, len(b))
        ctypes.memmove(buf, a, len(a))

t = threading.Thread(target=flip)
t.start()
hits = 0
for _ in range(2000):
    fd = libc.open(buf, os.O_RDONLY)
    if fd >= 0:
        hits += os.fstat(fd).st_ino == key_ino
        os.close(fd)
stop = True
t.join()
print(hits)
