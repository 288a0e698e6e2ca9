//go:build linux && cgo

package compile

import (
	"github.com/sysgate/sysgate/baseline/scheduling"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// classArgs makes register values for a call of name on arch: values that
// satisfy each alternative of each known class, with noise in the bits
// the comparisons ignore, and plain random values.
func classArgs(rng *rand.Rand, arch scmp.Arch, name string) [][6]uint64 {
	var out [][6]uint64
	noise := func() [6]uint64 {
		var a [6]uint64
		for i := range a {
			switch rng.IntN(3) {
			case 0:
				a[i] = rng.Uint64()
			case 1:
				a[i] = uint64(rng.Uint32())
			default:
				a[i] = uint64(rng.IntN(16))
			}
		}
		return a
	}
	for _, class := range argclass.KnownClasses(arch, name) {
		for _, alt := range argclass.ClassMatch(arch, argclass.ClassKey(name, class)) {
			for range 4 {
				a := noise()
				for _, c := range alt {
					a[c.Arg] = a[c.Arg]&^c.Mask | c.Value
				}
				out = append(out, a)
			}
		}
	}
	for range 200 {
		out = append(out, noise())
	}
	return out
}

// TestClassifyAgreesWithTheFilter is the contract of argument classes: a
// call is allowed by a compiled class exactly when Classify names that
// class, and otherwise goes to the listener, on the native arch and on a
// foreign one, for every classed syscall.
func TestClassifyAgreesWithTheFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	native := scmp.Native()
	for _, arch := range []scmp.Arch{native, foreignArch(native)} {
		for _, name := range argclass.ClassedSyscalls(arch) {
			args := classArgs(rng, arch, name)
			// Allow a few random subsets of the known classes each (the
			// last never empty).
			for round := range 3 {
				allowed := map[string]bool{}
				var lines []string
				for _, class := range argclass.KnownClasses(arch, name) {
					key, err := argclass.CanonicalKey(arch, argclass.ClassKey(name, class))
					if err != nil {
						t.Fatalf("%s: known class %q does not parse: %v", name, class, err)
					}
					if rng.IntN(3) == 0 || len(allowed) == 0 && round == 2 {
						if !allowed[key] {
							allowed[key] = true
							lines = append(lines, "    - "+quoteKey(key)+": test")
						}
					}
				}
				if len(lines) == 0 {
					continue
				}
				doc := "version: 1\nsyscalls:\n  " + arch.String() + ":\n" + strings.Join(lines, "\n") + "\n"
				p, err := baseline.LoadStack(writeFile(t, t.TempDir(), "a.yaml", doc))
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", arch, name, err, doc)
				}
				f, err := Compile(p, baseline.ModeCheck, Options{})
				if err != nil {
					t.Fatalf("%s %s: %v", arch, name, err)
				}
				nr := number(t, arch, name)
				for _, a := range args {
					key := argclass.Classify(arch, name, a)
					got := runFilterArgs(t, f, arch, nr, a)
					want := uint32(retNotify)
					// The built-in scheduling group allows one class
					// (tgkill(SIGURG)) in every baseline.
					if p.Allows(arch, key) != (allowed[key] || scheduling.Is(key)) {
						t.Fatalf("%s %s: the profile allows %s: %v", arch, name, key, p.Allows(arch, key))
					}
					switch {
					case p.Allows(arch, key):
						want = retAllow
					case key == f.LoggedKey(arch, name) && key != name:
						// The common class: logged, and the log names it.
						want = retLog
					}
					if got != want {
						t.Fatalf("%s %s args %#x: class %s, filter %#x, want %#x (allowed %v)", arch, name, a, key, got, want, allowed)
					}
				}
			}
		}
	}
}

// In record mode every call of a classed syscall goes to the listener but
// those of its common class, which are logged and named by the filter's
// Implied map: a fork is never held (a held call can return EINTR).
func TestRecordLogsTheCommonClass(t *testing.T) {
	native := scmp.Native()
	f, err := Compile(nil, baseline.ModeRecord, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args [6]uint64
		want uint32
	}{
		{"clone", [6]uint64{0x3d0f00}, retLog},           // a thread
		{"clone", [6]uint64{0x01200011}, retLog},         // fork()
		{"clone", [6]uint64{0x10000000 | 17}, retNotify}, // CLONE_NEWUSER
		{"openat", [6]uint64{0, 0, 0x80000}, retLog},     // O_RDONLY|O_CLOEXEC
		{"openat", [6]uint64{0, 0, 0x241}, retNotify},    // O_WRONLY|O_CREAT|O_TRUNC
		{"mmap", [6]uint64{0, 4096, 3}, retLog},          // PROT_READ|PROT_WRITE
		{"mmap", [6]uint64{0, 4096, 7}, retNotify},       // W+X
		{"socket", [6]uint64{1, 1}, retNotify},           // no common class
		{"read", [6]uint64{0, 0, 1}, retLog},
	} {
		if got := runFilterArgs(t, f, native, number(t, native, c.name), c.args); got != c.want {
			t.Errorf("record %s %#x -> %#x, want %#x", c.name, c.args, got, c.want)
		}
	}
	for name, want := range map[string]string{"clone": "clone(none)", "openat": "openat(read)", "mmap": "mmap(W^X)", "socket": "socket", "read": "read"} {
		if got := f.LoggedKey(native, name); got != want {
			t.Errorf("LoggedKey(%s) = %s, want %s", name, got, want)
		}
	}
}

// quoteKey writes a key as a YAML scalar.
func quoteKey(key string) string { return `"` + key + `"` }
