package harness

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrSudoIDs is returned (wrapped) by SudoCaller when sudo's variables do
// not hold numeric ids: bad input, the caller should name the user itself.
var ErrSudoIDs = errors.New("not a numeric id")

// SudoCaller is the user who ran sudo, read from SUDO_UID and SUDO_GID
// through getenv (os.Getenv at the edge; the harness reads no environment
// of its own). When ok, the agent should run as uid:gid: that is what a
// `sudo make security-test` user and a GitHub runner's `sudo sysgate`
// expect. ok is false when this process is not root, was not started
// through sudo, or sudo was run by root.
func SudoCaller(getenv func(string) string) (uid, gid uint32, ok bool, err error) {
	u, g := getenv("SUDO_UID"), getenv("SUDO_GID")
	if u == "" || os.Geteuid() != 0 {
		return 0, 0, false, nil
	}
	ids := [2]uint32{}
	for i, v := range [2][2]string{{"SUDO_UID", u}, {"SUDO_GID", g}} {
		n, perr := strconv.ParseUint(v[1], 10, 32)
		if perr != nil {
			return 0, 0, false, fmt.Errorf("%s=%q: %w", v[0], v[1], ErrSudoIDs)
		}
		ids[i] = uint32(n)
	}
	if ids[0] == 0 {
		return 0, 0, false, nil
	}
	return ids[0], ids[1], true, nil
}
