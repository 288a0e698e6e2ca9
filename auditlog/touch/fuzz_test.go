package touch

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzAssemble feeds "TYPE record" lines to the Assembler and maps every
// event it yields to accesses: nothing the kernel (or a hostile name in a
// record) can put there may panic.
func FuzzAssemble(f *testing.F) {
	addCapturedSeeds(f)
	f.Add("1300 audit(1.1:5): arch=c000003e syscall=257 success=yes exit=3 a0=ffffff9c a1=0 a2=1 a3=0 items=1 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1302 audit(1.1:5): item=0 name=\"../../..\" inode=1 dev=zz mode=0777 nametype=NORMAL\n1320 audit(1.1:5): \n")
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, in string) {
		a := NewAssembler(func(ev Event) {
			ev.FileAccesses()
			ev.ResolvedAccesses(root)
		})
		for line := range strings.SplitSeq(in, "\n") {
			typ, data, _ := strings.Cut(line, " ")
			n, err := strconv.ParseUint(typ, 10, 16)
			if err != nil {
				continue
			}
			_ = a.Push(uint16(n), []byte(data))
		}
		a.Close()
	})
}

// addCapturedSeeds seeds f with the captured run, twelve records a seed.
func addCapturedSeeds(f *testing.F) {
	_, _, recs := capturedLog(f)
	var b strings.Builder
	for i, r := range recs {
		b.WriteString(strconv.Itoa(int(r.Type)) + " " + r.Data + "\n")
		if i%12 == 11 {
			f.Add(b.String())
			b.Reset()
		}
	}
}
