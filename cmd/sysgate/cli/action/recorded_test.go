package action

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/golden"
)

const patch = "--- a/agent.yaml\n+++ b/agent.yaml\n@@ -3,3 +3,4 @@\n syscalls:\n   x86_64:\n-    - read\n+    - openat(read) # reads `````the task````\n+    - read\n"

func TestRecordedSummary(t *testing.T) {
	golden.Check(t, "testdata/recorded.md", []byte(RecordedSummary([]string{"agent.yaml", "runtimes/python.yaml"}, "The artifact `sysgate-job-Linux-X64-0123abcd`", patch)))
	golden.Check(t, "testdata/recorded-nothing.md", []byte(RecordedSummary(nil, "unused", "")))
}

// A long patch is cut at 300 lines, and the section says where the rest is.
func TestRecordedSummaryCutsALongPatch(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- /dev/null\n+++ b/big.yaml\n@@ -0,0 +1,400 @@\n")
	for i := range 400 {
		fmt.Fprintf(&b, "+    - line %d\n", i)
	}
	got := RecordedSummary([]string{"big.yaml"}, "The reports directory (`/r`)", b.String())
	for _, want := range []string{"(+400 −0 lines)", "baseline-update.patch (403 lines)", "+    - line 296\n```\n", "(the first 300 of 403 lines"} {
		if !strings.Contains(got, want) {
			t.Errorf("the section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "line 297") {
		t.Error("the section holds more than 300 lines of the patch")
	}
}

func TestFence(t *testing.T) {
	for in, want := range map[string]string{"": "```", "a `b` c": "```", "````": "`````", "``\n``": "```", "x ``````` y": "````````"} {
		if got := Fence(in); got != want {
			t.Errorf("Fence(%q) = %q, want %q", in, got, want)
		}
	}
}

// The widening verdict's one line, from the text baseline diff --base
// prints (the CLI's own golden file of it).
func TestWideningEntriesOfARealDiff(t *testing.T) {
	diff, err := os.ReadFile("../testdata/baseline/diff-base.txt")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/widening-entries.txt", []byte(WideningEntries(string(diff))+"\n"))
}
