package touch

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A run's records as rm -rf tree made them here (fts: directory
// descriptors dup'd from the ones its opens returned), fed to Dirs the
// way the harness does: the resolver placed only the open of "tree"
// relative to the CWD.
const (
	dirMode  = unix.S_IFDIR | 0o755
	fileMode = unix.S_IFREG | 0o644
	ws       = "/ws"
)

func dirItem(name, nametype string, inode uint64) Path {
	return Path{Name: name, NameType: nametype, Inode: inode, Dev: "fe:00", Mode: dirMode}
}

func fileItem(name, nametype string, inode uint64) Path {
	return Path{Name: name, NameType: nametype, Inode: inode, Dev: "fe:00", Mode: fileMode}
}

// unlinkAt is unlinkat(fd, name) of a file (dir=false) or a directory in
// the directory with inode parent; the kernel names the parent by the CWD.
func unlinkAt(fd int, name string, parent, inode uint64, dir bool) Event {
	item := fileItem(name, "DELETE", inode)
	if dir {
		item = dirItem(name, "DELETE", inode)
	}
	ev := Event{Syscall: "unlinkat", PID: 7, Args: [4]uint64{uint64(fd)}, CWD: ws, Paths: []Path{dirItem(ws, "PARENT", parent), item}}
	ev.makeAbs()
	return ev
}

func openAt(fd int, name string, inode uint64, exit int64) Event {
	ev := Event{Syscall: "openat", PID: 7, Args: [4]uint64{uint64(fd)}, Flags: oRDONLY, CWD: ws, Exit: exit, Paths: []Path{dirItem(name, "NORMAL", inode)}}
	if fd < 0 {
		ev.Args[0] = atFDCWD
	}
	ev.makeAbs()
	return ev
}

// feed notes each event, with the accesses the resolver tied (placed:
// path by inode; what it did not place stays unverified), and holds the
// unverified ones relative to a descriptor.
func feed(d *Dirs, placed map[uint64]string, evs ...Event) []Held {
	var held []Held
	for _, ev := range evs {
		acc := ev.FileAccesses()
		for i := range acc {
			if p, ok := placed[acc[i].Item.Inode]; ok {
				acc[i].Path, acc[i].Unverified = p, false
			}
		}
		d.Note(ev, acc)
		for _, a := range acc {
			if a.Unverified && a.Item.Relative() {
				held = append(held, d.Hold(ev, a))
			}
		}
	}
	return held
}

func placeAll(d *Dirs, held []Held) []string {
	var out []string
	for _, h := range held {
		if p, ok, why := d.Place(h); ok {
			out = append(out, p)
		} else {
			out = append(out, "unplaced: "+h.Desc+": "+why)
		}
	}
	return out
}

const (
	tree, sub, deeper = 100, 101, 102
	fileA, fileB      = 200, 201
)

func rmTree() []Event {
	return []Event{
		openAt(-1, "tree", tree, 3),
		unlinkAt(4, "a", tree, fileA, false),
		openAt(4, "sub", sub, 3),
		unlinkAt(5, "b", sub, fileB, false),
		unlinkAt(4, "sub", tree, sub, true),
	}
}

func TestDirsPlaceRmTree(t *testing.T) {
	d := NewDirs()
	held := feed(d, map[uint64]string{tree: ws + "/tree"}, rmTree()...)
	got := placeAll(d, held)
	want := []string{"/ws/tree/a", "/ws/tree/sub", "/ws/tree/sub/b", "/ws/tree/sub"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("placed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// fd 4 was learnt from the kernel's PARENT of unlinkat(4, "a"):
	// fts used a dup of the descriptor its open returned (3).
	if c := d.Candidate(rmTree()[2], rmTree()[2].Paths[0]); c != "/ws/tree/sub" {
		t.Errorf("candidate for openat(4, sub) = %q, want /ws/tree/sub", c)
	}
}

// A directory the run renamed may have been used under either name: no
// name relative to a descriptor is placed, and the report says why and
// which call.
func TestDirsRenamedDirectoryPlacesNothing(t *testing.T) {
	d := NewDirs()
	rename := Event{Syscall: "renameat2", PID: 7, Args: [4]uint64{atFDCWD, 0, atFDCWD}, CWD: ws, Paths: []Path{
		dirItem(ws, "PARENT", 1), dirItem("/home/u", "PARENT", 2), dirItem("tree", "DELETE", tree), dirItem("/home/u/tree", "CREATE", tree)}}
	rename.makeAbs()
	evs := append(rmTree()[:2], rename)
	held := feed(d, map[uint64]string{tree: ws + "/tree"}, evs...)
	got := placeAll(d, held)
	if len(got) != 1 || !strings.Contains(got[0], `unplaced: unlinkat "a" relative to descriptor 4 (directory inode 100 on fe:00)`) ||
		!strings.Contains(got[0], `renamed a directory (renameat2 "/ws/tree")`) {
		t.Errorf("after a directory rename: %q", got)
	}
}

// An inode the records give two paths (reused after an rmdir, or seen
// through a bind mount) places nothing under it.
func TestDirsTwoPathsPlaceNothing(t *testing.T) {
	d := NewDirs()
	evs := append(rmTree(), openAt(-1, "/home/u/.ssh", sub, 3), unlinkAt(6, "id_rsa", sub, 300, false))
	held := feed(d, map[uint64]string{tree: ws + "/tree", sub: "/home/u/.ssh"}, evs...)
	got := placeAll(d, held)
	want := []string{"/ws/tree/a", "unplaced: unlinkat \"b\"", "unplaced: unlinkat \"id_rsa\""}
	if len(got) != len(want) {
		t.Fatalf("placed %q, want prefixes %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) || (i > 0 && !strings.Contains(got[i], "no path, or two")) {
			t.Fatalf("placed %q, want prefixes %q", got, want)
		}
	}
}

// A call with two parent directories (a rename or link across them)
// does not say which name is in which: not placed by its parent.
func TestDirsTwoParentsPlaceNothing(t *testing.T) {
	d := NewDirs()
	link := Event{Syscall: "linkat", PID: 7, Args: [4]uint64{4, 0, 5}, CWD: ws, Paths: []Path{
		fileItem("a", "NORMAL", fileA), dirItem(ws, "PARENT", tree), dirItem(ws, "PARENT", sub), fileItem("b", "CREATE", fileA)}}
	link.makeAbs()
	held := feed(d, map[uint64]string{tree: ws + "/tree", sub: ws + "/tree/sub"}, openAt(-1, "tree", tree, 3), openAt(-1, "tree/sub", sub, 4), link)
	for _, p := range placeAll(d, held) {
		if !strings.HasPrefix(p, "unplaced") {
			t.Errorf("linkat across two directories placed %q", p)
		}
	}
}

// The descriptor an open returned names its directory for the
// process's later calls (tar -c reads that way): a candidate only.
func TestDirsCandidateFromOpen(t *testing.T) {
	d := NewDirs()
	open := openAt(-1, "tree", tree, 4)
	feed(d, map[uint64]string{tree: ws + "/tree"}, open)
	read := Event{Syscall: "openat", PID: 7, Args: [4]uint64{4}, Flags: oRDONLY, Paths: []Path{fileItem("README", "NORMAL", fileA)}}
	read.makeAbs()
	if c := d.Candidate(read, read.Paths[0]); c != "/ws/tree/README" {
		t.Errorf("candidate = %q, want /ws/tree/README", c)
	}
	read.PID = 8 // another process: its descriptor 4 is not known
	if c := d.Candidate(read, read.Paths[0]); c != "" {
		t.Errorf("candidate of another process = %q, want none", c)
	}
}
