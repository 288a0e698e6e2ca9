package landlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// benchOpen opens and closes path n times in the (restricted) child and
// reports the time per open as the error text, which the parent reads.
func benchOpen(n, path string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	start := time.Now()
	for range count {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		unix.Close(fd)
	}
	return fmt.Errorf("ns=%d", time.Since(start).Nanoseconds()/int64(count))
}

// BenchmarkOpen compares open+close of a file under a Landlock rule with
// the same open unrestricted, each in a child of its own; the reported
// ns/op is the child's loop alone. Landlock checks every component of the
// path up to the root against the domain, so depth is a parameter.
func BenchmarkOpen(b *testing.B) {
	abi, err := ABI()
	if err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	for _, depth := range []int{1, 12} {
		dir := filepath.Join(append([]string{root}, strings.Split(strings.Repeat("d/", depth), "/")...)...)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		file := filepath.Join(dir, "f")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			b.Fatal(err)
		}
		rs, _, err := NewRuleset(abi, []PathRule{{Path: root, Read: true}})
		if err != nil {
			b.Fatal(err)
		}
		defer rs.Close()
		for _, mode := range []struct {
			name  string
			flags RestrictFlags
		}{{"bare", noRestrict}, {"landlock", 0}} {
			b.Run(fmt.Sprintf("%s/depth=%d", mode.name, strings.Count(file, "/")), func(b *testing.B) {
				op := fmt.Sprintf("bench %d %s", b.N, file)
				got := inChild(b, rs, mode.flags, op)[op]
				ns, ok := strings.CutPrefix(got, "ns=")
				v, err := strconv.ParseFloat(ns, 64)
				if !ok || err != nil {
					b.Fatalf("child: %s", got)
				}
				b.ReportMetric(v, "ns/op")
			})
		}
	}
}
