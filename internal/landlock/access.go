package landlock

import "golang.org/x/sys/unix"

// Access is a set of Landlock file-system access rights
// (LANDLOCK_ACCESS_FS_*).
type Access uint64

// The rights by the ABI that introduced them. IOCTL_DEV (ABI 5) is left
// unhandled on purpose: a `files:` section has no ioctl access, the
// syscall baseline already gates ioctl, and handling it would only add
// denials for devices the agent may open anyway (isatty on a terminal it
// opened itself).
const (
	rightsABI1 Access = unix.LANDLOCK_ACCESS_FS_EXECUTE |
		unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	rightsABI2 = rightsABI1 | unix.LANDLOCK_ACCESS_FS_REFER
	rightsABI3 = rightsABI2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// fileRights are the rights the kernel accepts on a rule for a
// non-directory; the others concern a directory's entries.
const fileRights Access = unix.LANDLOCK_ACCESS_FS_EXECUTE |
	unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE |
	unix.LANDLOCK_ACCESS_FS_TRUNCATE |
	unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// The rights behind a rule's four accesses. Write covers creating every
// kind of entry except device nodes (never granted, so mknod of a device
// is always denied), and REFER so a file may be renamed or linked from
// one granted directory to another (Landlock denies any cross-directory
// rename or link without it, even between two writable trees). Renaming
// or deleting an entry also needs Delete on its directory: an atomic save
// (write a temporary file, rename it over the target) needs write and
// delete.
const (
	readRights Access = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// createRights are what a rule grants on a directory so files may be
	// made and written inside it.
	createRights Access = unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_REFER
	writeRights         = createRights
	execRights   Access = unix.LANDLOCK_ACCESS_FS_EXECUTE
	deleteRights Access = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
)

// HandledAccess is what a ruleset for the given ABI denies unless a rule
// allows it: every file-system right that ABI knows, so an older kernel
// simply enforces less (a right it does not know stays allowed, which is
// Landlock's own compatibility rule). ABI values above the newest known
// right get the newest set; 0 or less handles nothing.
func HandledAccess(abi int) Access {
	switch {
	case abi >= 3:
		return rightsABI3
	case abi == 2:
		return rightsABI2
	case abi == 1:
		return rightsABI1
	default:
		return 0
	}
}

// Rights returns the access rights rule r grants on a directory, before
// the ABI mask.
func (r PathRule) Rights() Access {
	var a Access
	if r.Read {
		a |= readRights
	}
	if r.Write {
		a |= writeRights
	}
	if r.Exec {
		a |= execRights
	}
	if r.Delete {
		a |= deleteRights
	}
	return a
}
