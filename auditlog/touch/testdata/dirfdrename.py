# A directory opened, then renamed, then used through its descriptor:
# the name relative to it is in the directory's new place, which the
# records of the use do not say.
import os

os.makedirs("tree/sub")
fd = os.open("tree/sub", os.O_RDONLY | os.O_DIRECTORY)
with open("tree/sub/f", "w") as f:
    f.write("x")
os.rename("tree", "moved")
os.unlink("f", dir_fd=fd)
os.close(fd)
