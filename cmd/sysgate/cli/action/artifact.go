package action

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// ArtifactInputs are what makes one matrix leg's reports differ from
// another's: the inputs and the working directory.
type ArtifactInputs struct {
	Command, Packages, Baselines, Agent, Mode, Backend, Args, Dir string
}

// ArtifactName is sysgate-<job>-<os>-<arch>-<hash>, unique per matrix leg:
// the hash is of the inputs, each NUL-terminated.
func ArtifactName(job, runnerOS, runnerArch string, in ArtifactInputs) string {
	h := sha256.New()
	for _, v := range []string{in.Command, in.Packages, in.Baselines, in.Agent, in.Mode, in.Backend, in.Args, in.Dir} {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("sysgate-%s-%s-%s-%s", or(job, "job"), or(runnerOS, "Linux"), or(runnerArch, "X64"), hex.EncodeToString(h.Sum(nil))[:8])
}

// or is v, else def when v is empty (a shell's ${v:-def}).
func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
