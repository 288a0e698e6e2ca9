# The accesses the captured records in testdata/*.log come from; run in
# a fresh workspace by TestCaptureRecords with OUTSIDE set to a directory
# beside it.
import os, socket, subprocess, sys

outside = sys.argv[1]
open("in.txt").read()
with open("out.txt", "w") as f:
    f.write("x")
os.rename("out.txt", "moved.txt")
os.link("moved.txt", "hard.txt")
os.symlink(os.path.join(outside, "target.txt"), "link")
with open("link", "w") as f:  # a write through a planted symlink
    f.write("y")
with open("tmp.txt", "w") as f:  # a temp file, deleted while open
    os.unlink("tmp.txt")
os.mkdir("d")
os.rmdir("d")
os.chmod("in.txt", 0o600)
fd = os.open("in.txt", os.O_PATH)
with open("/proc/self/fd/%d" % fd, "a") as f:
    f.write("z")
os.close(fd)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen()
c = socket.create_connection(srv.getsockname())
c.close()
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.sendto(b"q", ("::1", 9))
x = socket.socket(socket.AF_UNIX)
x.bind(os.path.join(os.getcwd(), "sock"))
subprocess.run(["/bin/true"])
