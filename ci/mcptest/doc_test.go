package mcptest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// docPath is the user-facing doc whose spec must build against this
// checkout.
const docPath = "../../docs/mcp.md"

// TestDocSpecCompiles: the spec in docs/mcp.md compiles (go vet) in a
// module of its own, as a user's would, offline. It is the one Go block
// of the doc, which the README links to.
func TestDocSpecCompiles(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```go\n(.*?)^```$").FindAllSubmatch(doc, -1)
	if len(blocks) != 1 {
		t.Fatalf("%s: %d Go blocks, want the one spec", docPath, len(blocks))
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	env := testutil.UserModule(t, mod, root, "example.com/myrepo", map[string]string{
		"security/my_server_test.go": string(blocks[0][1]),
	})
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = mod
	cmd.Env = append(append(os.Environ(), env...), "GOWORK=off", "GOTOOLCHAIN=local")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("go vet of %s's spec: %v\n%s\n%s", docPath, err, out.String(), blocks[0][1])
	}
}
