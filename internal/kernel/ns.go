package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// The fixed inode numbers of the initial namespaces (include/linux/proc_ns.h).
// The net one is fixed only on newer kernels; elsewhere it is allocated.
const (
	InitUserNSInode = 0xEFFFFFFD
	InitNetNSInode  = 0xEFFFFFF9
)

// NamespaceInode returns the inode number of the calling process's
// namespace of kind ns ("user", "net", ...: /proc/self/ns/<ns>).
func NamespaceInode(ns string) (uint64, error) {
	path := "/proc/self/ns/" + ns
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Ino, nil
}
