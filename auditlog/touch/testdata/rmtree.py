# shutil.rmtree walks by directory descriptors (openat/unlinkat relative
# to them): the names the kernel records are relative to those.
import os, shutil

os.makedirs("tree/sub")
for p in ("tree/a", "tree/sub/b"):
    with open(p, "w") as f:
        f.write("x")
shutil.rmtree("tree")
