package filecalls

// Reasons shared by several calls.
const (
	dataThroughDescriptor = "data through a descriptor: the open that made it was observed and judged by its access mode (a descriptor opened read-only cannot write)"
	needsWriteMode        = "changes the content through a descriptor, which the kernel requires to be open for writing: that open was observed as a write"
	revealsMetadata       = "reveals a file's metadata or a directory's names, not its content; the files section gates contents and changes (docs/coverage.md: not seen)"
	revealsXattr          = "reads extended attributes (metadata, not content); a user.* store the agent wrote was observed as a write (setxattr, fsetxattr); reading other files' attributes is not seen (docs/coverage.md)"
	syncs                 = "flushes or advises on what a descriptor already reads or writes: changes nothing the open did not allow"
	mapping               = "maps a descriptor's file: the kernel allows a shared writable mapping only on a descriptor open for writing, whose open was observed"
	descriptorBookkeeping = "descriptor bookkeeping: no file is read or changed"
	changesLookups        = "changes where later lookups start; every later lookup is observed by the path the kernel resolved"
	mountCall             = "changes what paths reach: risky (baseline/risk: a baseline has it only with a reason) and needs CAP_SYS_ADMIN, which even a root agent never has (the fence, docs/threat-model.md)"
	watches               = "reports that a file changed, not its content (inotify, fanotify marks)"
	networkTable          = "a unix socket's path: observed by the network observer (notify/netproxy, auditlog/touch's network rules), not this table"
	sysAdmin              = "needs CAP_SYS_ADMIN or is risky (baseline/risk): a baseline has it only with a reason a person wrote"
	oldABI                = "an obsolete entry point the kernel no longer implements (ENOSYS)"
)

// Unobserved are the calls that take a path or a descriptor and can
// change or reveal a file which the file observers do not watch, each
// with the reason. Names absent on an arch are simply not met there.
var Unobserved = map[string]string{
	// Content through a descriptor.
	"read": dataThroughDescriptor, "readv": dataThroughDescriptor, "pread64": dataThroughDescriptor,
	"preadv": dataThroughDescriptor, "preadv2": dataThroughDescriptor,
	"write": dataThroughDescriptor, "writev": dataThroughDescriptor, "pwrite64": dataThroughDescriptor,
	"pwritev": dataThroughDescriptor, "pwritev2": dataThroughDescriptor,
	"sendfile": dataThroughDescriptor, "sendfile64": dataThroughDescriptor,
	"splice": dataThroughDescriptor, "tee": dataThroughDescriptor, "vmsplice": dataThroughDescriptor,
	"copy_file_range": dataThroughDescriptor, "lseek": dataThroughDescriptor, "_llseek": dataThroughDescriptor,
	"io_submit": dataThroughDescriptor, "io_setup": dataThroughDescriptor, "io_getevents": dataThroughDescriptor,
	"io_pgetevents": dataThroughDescriptor, "io_pgetevents_time64": dataThroughDescriptor,
	"io_cancel": dataThroughDescriptor, "io_destroy": dataThroughDescriptor,
	"cachestat": "reports which pages of a descriptor's file are cached: its open was observed",
	"mincore":   "reports which pages of a mapping are resident: the mapping's file was opened (observed)",
	"ftruncate": needsWriteMode, "ftruncate64": needsWriteMode, "fallocate": needsWriteMode,
	"mmap": mapping, "mmap2": mapping, "remap_file_pages": mapping, "mremap": mapping, "mprotect": mapping,
	"pkey_mprotect": mapping, "msync": mapping, "madvise": mapping, "process_madvise": mapping,
	"fsync": syncs, "fdatasync": syncs, "sync_file_range": syncs, "sync_file_range2": syncs,
	"arm_sync_file_range": syncs, "syncfs": syncs, "fadvise64": syncs, "fadvise64_64": syncs,
	"arm_fadvise64_64": syncs, "readahead": syncs, "flock": syncs,
	"fcntl":   "locks, leases, flags of a descriptor: O_APPEND and O_NONBLOCK only; it never adds read or write access",
	"fcntl64": "locks, leases, flags of a descriptor: O_APPEND and O_NONBLOCK only; it never adds read or write access",
	"ioctl":   "classed by request (baseline/argclass): FS_IOC_SETFLAGS (chattr +i/+a), FS_IOC_FSSETXATTR, FICLONE and the like are each a class a baseline lists by name; which file is not judged",
	// Metadata and names, read.
	"stat": revealsMetadata, "lstat": revealsMetadata, "fstat": revealsMetadata, "newfstatat": revealsMetadata,
	"stat64": revealsMetadata, "lstat64": revealsMetadata, "fstat64": revealsMetadata, "fstatat64": revealsMetadata,
	"oldstat": revealsMetadata, "oldlstat": revealsMetadata, "oldfstat": revealsMetadata, "statx": revealsMetadata,
	"statfs": revealsMetadata, "fstatfs": revealsMetadata, "statfs64": revealsMetadata, "fstatfs64": revealsMetadata,
	"ustat": revealsMetadata, "access": revealsMetadata, "faccessat": revealsMetadata, "faccessat2": revealsMetadata,
	"readlink": revealsMetadata, "readlinkat": revealsMetadata, "getdents": revealsMetadata,
	"getdents64": revealsMetadata, "readdir": revealsMetadata, "getcwd": revealsMetadata,
	"getxattr": revealsXattr, "lgetxattr": revealsXattr, "fgetxattr": revealsXattr,
	"listxattr": revealsXattr, "llistxattr": revealsXattr, "flistxattr": revealsXattr,
	"lookup_dcookie": sysAdmin,
	// Descriptors, not files.
	"close": descriptorBookkeeping, "close_range": descriptorBookkeeping, "dup": descriptorBookkeeping,
	"dup2": descriptorBookkeeping, "dup3": descriptorBookkeeping, "kcmp": descriptorBookkeeping,
	"pidfd_getfd": "takes a descriptor of another process with ptrace access to it: risky (baseline/risk); outside the run that needs CAP_SYS_PTRACE, which the fence takes from a root agent",
	// Where lookups start.
	"chdir": changesLookups, "fchdir": changesLookups, "chroot": changesLookups,
	"landlock_add_rule": "only takes rights away (Landlock)",
	// Mounts and the like.
	"mount": mountCall, "umount": mountCall, "umount2": mountCall, "mount_setattr": mountCall,
	"move_mount": mountCall, "fsopen": mountCall, "fsmount": mountCall, "fsconfig": mountCall,
	"fspick": mountCall, "pivot_root": mountCall,
	"open_tree": "an O_PATH descriptor of a path (without OPEN_TREE_CLONE, which is a mount: CAP_SYS_ADMIN); a later open through it (/proc/self/fd/N) is observed as the open of that file",
	"swapon":    sysAdmin, "swapoff": sysAdmin, "acct": sysAdmin, "quotactl": sysAdmin, "quotactl_fd": sysAdmin,
	"uselib": sysAdmin, "spu_create": sysAdmin, "spu_run": sysAdmin, "init_module": sysAdmin,
	"finit_module": sysAdmin, "delete_module": sysAdmin, "kexec_file_load": sysAdmin, "kexec_load": sysAdmin,
	"bpf": sysAdmin, "fanotify_init": sysAdmin, "fanotify_mark": watches,
	"inotify_add_watch": watches, "inotify_rm_watch": watches, "inotify_init": watches, "inotify_init1": watches,
	"io_uring_setup":    "io_uring operations never pass seccomp nor these observers: risky (baseline/risk), a baseline has it only with a reason",
	"io_uring_enter":    "io_uring operations never pass seccomp nor these observers: risky (baseline/risk), a baseline has it only with a reason",
	"io_uring_register": "io_uring operations never pass seccomp nor these observers: risky (baseline/risk), a baseline has it only with a reason",
	"memfd_create":      "an anonymous file no path reaches",
	"memfd_secret":      "an anonymous file no path reaches",
	"mq_open":           "a POSIX message queue (mqueue file system), not a file the files section names",
	"mq_unlink":         "a POSIX message queue (mqueue file system), not a file the files section names",
	"nfsservctl":        oldABI,
	"_sysctl":           oldABI,
	"unshare":           "new namespaces: with a user namespace a mount namespace of its own, whose bind mounts change what its paths reach; risky (baseline/risk): a baseline has it only with a reason",
	"setns":             "joins the namespace a descriptor names: risky (baseline/risk) and CAP_SYS_ADMIN over it, which even a root agent never has (the fence)",
	// Unix socket paths.
	"bind": networkTable, "connect": networkTable, "sendto": networkTable, "sendmsg": networkTable,
	"sendmmsg": networkTable, "socketcall": networkTable, "recvmsg": "receives descriptors (SCM_RIGHTS) from a peer the network observer judged",
	"recvmmsg":        "receives descriptors (SCM_RIGHTS) from a peer the network observer judged",
	"recvmmsg_time64": "receives descriptors (SCM_RIGHTS) from a peer the network observer judged",
}
