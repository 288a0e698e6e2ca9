package touch

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FileID is a file as the kernel records it: device (hex major:minor)
// and inode.
type FileID struct {
	Dev   string
	Inode uint64
}

// ID is the item's file (Inode 0: the record had none).
func (p Path) ID() FileID { return FileID{p.Dev, p.Inode} }

// Relative reports a name relative to a directory descriptor other
// than the CWD (unlinkat(fd, "f")): Abs is "" and Dirs may place it.
func (p Path) Relative() bool {
	return p.dirfd >= 0 && p.Abs == "" && p.Name != "" && !path.IsAbs(p.Name)
}

func (p Path) isDir() bool { return p.Mode&unix.S_IFMT == unix.S_IFDIR }

// Dirs places names relative to a directory descriptor (unlinkat(fd,
// "f"), openat(fd, "sub") as fts, tar and shutil.rmtree make them) from
// the kernel's own records of the run, fed to Note in serial order:
//   - the directory: a CREATE or DELETE item comes with the PARENT item
//     of the directory it was made or removed in, whose inode is the
//     directory the kernel used (its name is not: for a parent the
//     caller did not spell, the kernel logs the CWD's path);
//   - that directory's path: an access of it the resolver tied to a path
//     (an open of "tree" relative to the CWD), or a chain of such
//     records (mkdirat or rmdir of "sub" in a placed directory).
//
// The run's directories keep their paths as long as it renames none:
// the run's renames are all recorded (rules for rename*), and nothing
// else of the run moves a directory (mount is fenced). So a run that
// renamed a directory places no name through Dirs at all, a directory
// recorded under two paths (an inode reused, a bind mount) is not
// placed, and a name is placed only once the run is over (Place), when
// every record is in: a rename logged after a use it raced with still
// counts. Not seen: a directory moved by a process outside the run
// while the run used it.
//
// A name without a PARENT item (openat(fd, "f") of an existing file)
// has only the descriptor: Candidate names it from the directory the
// process's recorded open returned under that number, a guess (dup2 and
// close are not recorded) that the resolver keeps only when the name
// leads to the inode the kernel recorded.
type Dirs struct {
	// placed are directories tied to a path by the resolver.
	placed map[FileID]string
	// conflict are directories seen under two paths.
	conflict map[FileID]bool
	// names are directories named in a parent by the kernel's records.
	names map[FileID]childName
	fds   map[pidFD]FileID
	// renamed is the first directory the run renamed ("" none).
	renamed string
}

type childName struct {
	parent FileID
	name   string
}

type pidFD struct{ pid, fd int }

// maxDirs bounds what Dirs keeps: past it, further directories are not
// learnt (their names stay unplaced: the run is inconclusive, never
// wrongly clean).
const maxDirs = 200000

// NewDirs is an empty table.
func NewDirs() *Dirs {
	return &Dirs{placed: map[FileID]string{}, conflict: map[FileID]bool{}, names: map[FileID]childName{}, fds: map[pidFD]FileID{}}
}

// Note learns from one successful event of the run and its accesses as
// resolved (Unverified ones teach nothing).
func (d *Dirs) Note(ev Event, acc []Access) {
	if ev.Failed {
		return
	}
	if isRename(ev.Syscall) {
		for _, p := range ev.Paths {
			if p.NameType != "PARENT" && (p.isDir() || p.Mode == 0) && d.renamed == "" {
				d.renamed = describe(ev, p)
			}
		}
	}
	for _, a := range acc {
		if !a.Unverified && a.Item.isDir() && a.Item.Inode != 0 {
			d.place(a.Item.ID(), a.Path)
		}
	}
	if parent, ok := soleParent(ev); ok {
		for _, p := range ev.Paths {
			if p.NameType != "CREATE" && p.NameType != "DELETE" {
				continue
			}
			if p.isDir() && p.Inode != 0 {
				d.name(p.ID(), childName{parent, path.Base(p.Name)})
			}
			if p.dirfd >= 0 && !strings.Contains(p.Name, "/") && len(d.fds) < maxDirs {
				// A bare name's parent is the descriptor's directory
				// (fts dups the descriptors it opens: the open's
				// return value is not the number it uses).
				d.fds[pidFD{ev.PID, p.dirfd}] = parent
			}
		}
	}
	if openCall(ev.Syscall) && ev.Exit >= 0 && len(d.fds) < maxDirs {
		for i, p := range ev.Paths {
			if p.NameType != "PARENT" && ev.lastObject(i) && p.isDir() && p.Inode != 0 {
				d.fds[pidFD{ev.PID, int(ev.Exit)}] = p.ID()
			}
		}
	}
}

func (d *Dirs) place(id FileID, p string) {
	if old, ok := d.placed[id]; ok && old != p {
		d.conflict[id] = true
	} else if ok || len(d.placed) < maxDirs {
		d.placed[id] = p
	}
}

func (d *Dirs) name(id FileID, c childName) {
	if old, ok := d.names[id]; ok && old != c {
		d.conflict[id] = true
	} else if ok || len(d.names) < maxDirs {
		d.names[id] = c
	}
}

// Candidate is a name for item, relative to a descriptor of ev's
// process, from the directory the process's recorded open returned
// under that number and its path so far: "" when there is none. Only a
// guess: the caller checks it leads to the item's inode.
func (d *Dirs) Candidate(ev Event, item Path) string {
	if item.dirfd < 0 || item.Name == "" {
		return ""
	}
	dir, ok := d.fds[pidFD{ev.PID, item.dirfd}]
	if !ok {
		return ""
	}
	p, ok := d.pathOf(dir, 0)
	if !ok {
		return ""
	}
	return path.Join(p, item.Name)
}

// Held is an access Dirs may place once the run is over.
type Held struct {
	// Desc names the call, the name and the descriptor, for a report.
	Desc   string
	parent FileID // the PARENT item's directory (Inode 0: none)
	item   FileID
	isDir  bool
	base   string
}

// Hold keeps what Place needs of an unverified access of ev.
func (d *Dirs) Hold(ev Event, a Access) Held {
	h := Held{Desc: describe(ev, a.Item), item: a.Item.ID(), isDir: a.Item.isDir(), base: path.Base(a.Item.Name)}
	if a.Item.NameType == "CREATE" || a.Item.NameType == "DELETE" {
		if parent, ok := soleParent(ev); ok {
			h.parent = parent
		}
	}
	return h
}

// Place ties a held access to a path once every record of the run is
// in: the path of the directory the kernel recorded as its parent, and
// its name's last element; or, for a directory, the path the run's
// records gave it. ok=false with the reason when it cannot.
func (d *Dirs) Place(h Held) (string, bool, string) {
	if d.renamed != "" {
		return "", false, "the run renamed a directory (" + d.renamed + "): names relative to descriptors are not placed"
	}
	if h.parent.Inode != 0 && h.base != "." && h.base != ".." && h.base != "/" {
		if p, ok := d.pathOf(h.parent, 0); ok {
			return path.Join(p, h.base), true, ""
		}
		return "", false, fmt.Sprintf("the run's records give its directory (inode %d on %s) no path, or two", h.parent.Inode, h.parent.Dev)
	}
	if h.isDir && h.item.Inode != 0 {
		if p, ok := d.pathOf(h.item, 0); ok {
			return p, true, ""
		}
	}
	return "", false, "the run's records give no path to the descriptor's directory"
}

// pathOf is a directory's path from the records: placed by the
// resolver, or named in a directory whose path is known; two different
// answers are none.
func (d *Dirs) pathOf(id FileID, depth int) (string, bool) {
	if d.conflict[id] || depth > 4096 {
		return "", false
	}
	placed, isPlaced := d.placed[id]
	c, named := d.names[id]
	if !named {
		return placed, isPlaced
	}
	parent, ok := d.pathOf(c.parent, depth+1)
	if !ok {
		return placed, isPlaced
	}
	p := path.Join(parent, c.name)
	if isPlaced && placed != p {
		return "", false
	}
	return p, true
}

// soleParent is the directory of the event's PARENT items when they all
// name the same one (a rename or link between two directories has two:
// which name belongs to which is not placed).
func soleParent(ev Event) (FileID, bool) {
	var id FileID
	for _, p := range ev.Paths {
		if p.NameType != "PARENT" {
			continue
		}
		if p.Inode == 0 || (id.Inode != 0 && p.ID() != id) {
			return FileID{}, false
		}
		id = p.ID()
	}
	return id, id.Inode != 0
}

func isRename(name string) bool {
	switch name {
	case "rename", "renameat", "renameat2":
		return true
	}
	return false
}

// describe names a call's item for a report: `unlinkat "f" relative to
// descriptor 4 (directory inode 1234 on 00:2f)`.
func describe(ev Event, p Path) string {
	s := ev.Syscall + " " + strconv.Quote(p.Name)
	if p.dirfd >= 0 {
		s += " relative to descriptor " + strconv.Itoa(p.dirfd)
		if parent, ok := soleParent(ev); ok {
			s += fmt.Sprintf(" (directory inode %d on %s)", parent.Inode, parent.Dev)
		}
	} else if p.Abs != "" {
		s = ev.Syscall + " " + strconv.Quote(p.Abs)
	}
	return s
}

// ResolveCandidate ties a candidate name of item (Dirs.Candidate) to
// the file under root as ResolvedAccesses ties recorded names: only
// when it leads to the inode the kernel recorded.
func (e Event) ResolveCandidate(root, name string, item Path) (string, bool) {
	if name == "" {
		return "", false
	}
	return e.resolve(root, name, item)
}
