# The file bites of issue 35, run by TestObservedAttack in a fresh
# workspace; argv[1] is a directory outside it holding target.txt,
# bashrc and secret.
import os, socket, sys

outside = sys.argv[1]
open("in.txt").read()
os.symlink(os.path.join(outside, "target.txt"), "link")
with open("link", "w") as f:  # a write through a planted symlink
    f.write("y")
os.remove("link")  # and the link is gone before anyone looks
os.symlink(os.path.join(outside, "target.txt"), "link2")
with open("link2", "a") as f:  # this one stays
    f.write("z")
with open("tmp.txt", "w") as f:
    f.write("t")
os.unlink("tmp.txt")
with open("a", "w") as f:
    f.write("a")
os.rename("a", os.path.join(outside, "bashrc"))  # over ~/.bashrc
os.link(os.path.join(outside, "secret"), "hard")  # a new name for a key
fd = os.open("in.txt", os.O_PATH)
os.close(os.open("/proc/self/fd/%d" % fd, os.O_WRONLY))
with open("sp ace\n.txt", "w") as f:  # the kernel hex-encodes this name
    f.write("s")

# A file handle opens a file without a path lookup.
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
handle = ctypes.create_string_buffer(8 + 128)
ctypes.c_uint.from_buffer(handle).value = 128
mount_id = ctypes.c_int()
if libc.name_to_handle_at(-100, os.path.join(outside, "secret").encode(), handle, ctypes.byref(mount_id), 0) != 0:
    sys.exit("name_to_handle_at: errno %d" % ctypes.get_errno())
mount_fd = os.open("/", os.O_RDONLY)
fd = libc.open_by_handle_at(mount_fd, handle, os.O_RDONLY)
if fd < 0:
    sys.exit("open_by_handle_at: errno %d" % ctypes.get_errno())
os.close(fd)

c = socket.socket()
try:
    c.connect(("127.0.0.1", 9))  # refused: success=1 rules record nothing
except OSError:
    pass
