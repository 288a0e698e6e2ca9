// Package notifytest is test support for the packages that serve a run's
// held calls themselves (notify/fileproxy, notify/netproxy): a
// filter that holds exactly the calls under test, and a loop that
// serves a listener until its last task is gone. Only tests import it.
//
// Needs: nothing; the filter it builds is loaded by the caller (with
// no_new_privs, or CAP_SYS_ADMIN).
package notifytest

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Filter makes every call of names on the native arch notify, and
// allows everything else (names libseccomp cannot number are skipped).
func Filter(names []string) []unix.SockFilter {
	arch := scmp.Native()
	var nrs []uint32
	for _, name := range names {
		if nr, ok := scmp.Number(arch, name); ok {
			nrs = append(nrs, uint32(nr))
		}
	}
	n := uint8(len(nrs))
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // seccomp_data.arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: arch.AuditArch(), Jf: n + 1},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
	}
	for i, nr := range nrs {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jt: n - uint8(i)})
	}
	return append(prog,
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF})
}

// ServeUntilHangUp receives held calls until every task holding the
// filter is gone; serve answers or leaves one (false: continued here).
func ServeUntilHangUp(lfd int, serve func(*kernel.SeccompNotif) (bool, error)) error {
	for {
		if _, err := kernel.WaitReady([]int{lfd}, -1); err != nil {
			return err
		}
		in, hup, err := kernel.PollListener(lfd)
		if err != nil {
			return err
		}
		if !in && hup {
			return nil
		}
		if !in {
			continue
		}
		var notif kernel.SeccompNotif
		if err := kernel.NotifRecv(lfd, &notif); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return err
		}
		handled, err := serve(&notif)
		if err != nil {
			return err
		}
		if !handled {
			if err := kernel.NotifContinue(lfd, notif.ID); err != nil && !errors.Is(err, unix.ENOENT) {
				return err
			}
		}
	}
}
