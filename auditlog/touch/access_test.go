package touch

import "testing"

// TestMetadataChangesAreWrites: the calls of the one table that change
// a file in place are writes of it (issue 43, items 2-4); through a
// descriptor the kernel records the inode and no name (fchmod), or no
// item at all (futimens): an unverified write either way, for the
// resolver and the run's records to place.
func TestMetadataChangesAreWrites(t *testing.T) {
	named := Path{Name: "/k", Abs: "/k", NameType: "NORMAL", Inode: 9, Dev: "fe:00"}
	nameless := Path{NameType: "NORMAL", Inode: 9, Dev: "fe:00", dirfd: -1}
	for _, c := range []struct {
		ev         Event
		unverified bool
	}{
		{Event{Syscall: "fchmodat2", Args: [4]uint64{atFDCWD, 1, 0o666}, Paths: []Path{named}}, false},
		{Event{Syscall: "setxattr", Args: [4]uint64{1}, Paths: []Path{named}}, false},
		{Event{Syscall: "lremovexattr", Args: [4]uint64{1}, Paths: []Path{named}}, false},
		{Event{Syscall: "utimensat", Args: [4]uint64{atFDCWD, 1}, Paths: []Path{named}}, false},
		{Event{Syscall: "utimes", Args: [4]uint64{1}, Paths: []Path{named}}, false},
		{Event{Syscall: "fchmod", Args: [4]uint64{3, 0o4755}, Paths: []Path{nameless}}, true},
		{Event{Syscall: "fsetxattr", Args: [4]uint64{3}, Paths: []Path{nameless}}, true},
		{Event{Syscall: "fchown", Args: [4]uint64{3}, Paths: []Path{nameless}}, true},
		{Event{Syscall: "utimensat", Args: [4]uint64{3, 0}}, true},
	} {
		acc := c.ev.FileAccesses()
		if len(acc) != 1 || acc[0].Op != Write || acc[0].Unverified != c.unverified {
			t.Errorf("%s %v: %+v, want one write (unverified %v)", c.ev.Syscall, c.ev.Args, acc, c.unverified)
			continue
		}
		if fd, ok := c.ev.ChangedFD(); ok != c.unverified || (ok && fd != 3) {
			t.Errorf("%s: ChangedFD %d %v", c.ev.Syscall, fd, ok)
		}
	}
	// A NULL path in utimensat without a descriptor item is still the
	// descriptor's file; with a path it names the path.
	if fd, ok := (Event{Syscall: "utimensat", Args: [4]uint64{atFDCWD, 1}}).ChangedFD(); ok {
		t.Errorf("utimensat with a path: descriptor %d", fd)
	}
}
