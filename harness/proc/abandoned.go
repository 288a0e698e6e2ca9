package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/internal/kernel"
)

// CauseAbandoned: the process belonged to a run whose harness died (e.g.
// SIGKILL) before it could end the run's tree; a later Run killed it.
const CauseAbandoned = "abandoned by a killed harness"

// unsetSession is AUDIT_SID_UNSET: the audit session of every process no
// login (and no sysgate run) started, daemons and CI runners included.
const unsetSession = math.MaxUint32

// A run's claim is the file <claimsDir>/<ses> naming the harness process
// (pid and start time) that owns the session, and what every process of
// the run carries. A harness killed mid-run leaves its claim and the
// agent's tree behind; the next Run on the machine kills that tree, so no
// unobserved agent keeps running.
//
// A root agent can write the claims too, so a claim proves nothing by
// itself: only processes that carry what the claim says every process of
// the run carries (see claim.proves) are killed, never a whole session,
// and never the unset one. Whatever is not acted on is reported.
var claimsDir = filepath.Join(auditctl.StateDir, "sessions")

type sessionOwner struct {
	pid   int
	start time.Duration
}

func (o sessionOwner) alive() bool {
	info, err := kernel.ReadInfo(o.pid)
	return err == nil && info.Start == o.start && !info.Zombie()
}

// claim is one claims file. Its text is "OWNER_PID OWNER_START v2
// ROOT_START FILTERS FENCE LOGINUID": the owner first, as sysgate before
// version 2 wrote and reads it (it reads the first two fields).
type claim struct {
	ses       uint32
	owner     sessionOwner
	rootStart time.Duration // boot time before the launch, in whole clock ticks: the run's processes start no earlier
	filters   int           // the harness's Seccomp_filters plus the run's main filter: the run's processes carry at least as many
	fence     uint64        // capabilities gone from every bounding set of the run
	loginUID  uint32
}

const claimVersion = "v2"

func (c claim) String() string {
	return fmt.Sprintf("%d %d %s %d %d %d %d\n", c.owner.pid, int64(c.owner.start), claimVersion, int64(c.rootStart), c.filters, c.fence, c.loginUID)
}

// parseClaim reads the owner first, so that a live owner's claim in
// another format (another sysgate version) is left alone.
func parseClaim(ses uint32, data string) (c claim, ownerOK bool, err error) {
	c.ses = ses
	f := strings.Fields(data)
	var start, rootStart int64
	if len(f) >= 2 {
		c.owner.pid, err = strconv.Atoi(f[0])
		if err == nil {
			start, err = strconv.ParseInt(f[1], 10, 64)
		}
		ownerOK = err == nil
		c.owner.start = time.Duration(start)
	}
	if !ownerOK {
		return c, false, fmt.Errorf("no owner: %q", strings.TrimSpace(data))
	}
	if len(f) != 7 || f[2] != claimVersion {
		return c, ownerOK, fmt.Errorf("not a %s claim: %q", claimVersion, strings.TrimSpace(data))
	}
	var loginUID uint64
	for _, step := range []func() error{
		func() (err error) { rootStart, err = strconv.ParseInt(f[3], 10, 64); return err },
		func() (err error) { c.filters, err = strconv.Atoi(f[4]); return err },
		func() (err error) { c.fence, err = strconv.ParseUint(f[5], 10, 64); return err },
		func() (err error) { loginUID, err = strconv.ParseUint(f[6], 10, 32); return err },
	} {
		if err := step(); err != nil {
			return c, ownerOK, err
		}
	}
	c.rootStart, c.loginUID = time.Duration(rootStart), uint32(loginUID)
	return c, ownerOK, nil
}

// verifiable says why a well-formed claim still cannot single out a run:
// the unset session is everybody's, and without CAP_AUDIT_CONTROL fenced
// or a filter the run's processes are like any others.
func (c claim) verifiable() error {
	switch {
	case c.ses == unsetSession:
		return fmt.Errorf("it names the unset audit session %d, which no sysgate run has", unsetSession)
	case c.fence&(1<<unix.CAP_AUDIT_CONTROL) == 0:
		return errors.New("its run kept CAP_AUDIT_CONTROL, so the session does not single it out")
	case c.filters < 1:
		return errors.New("it names no seccomp filter")
	}
	return nil
}

// proves reports whether pid carries everything a process of the claimed
// run carries: the session, a start no earlier than the run's first
// process, the filters (no process sheds one), no_new_privs, a bounding
// set without the fence (none regains a capability) and the loginuid.
func (c claim) proves(pid int) bool {
	info, err := kernel.ReadInfo(pid)
	if err != nil || info.Session != c.ses || info.Start < c.rootStart {
		return false
	}
	st, err := kernel.ReadSeccompState(pid)
	if err != nil || st.Mode != 2 || !st.NoNewPrivs || st.Filters < c.filters || st.CapBnd&c.fence != 0 {
		return false
	}
	uid, err := kernel.ReadLoginUID(pid)
	return err == nil && uid == c.loginUID
}

// ClaimSession records this process as the owner of ses, a run launched
// at launched (boot time, before the launch) with the given fence and
// loginuid; release removes the claim once the run's tree is gone.
func ClaimSession(ses uint32, launched time.Duration, fence uint64, loginUID uint32) (release func(), err error) {
	me, err := kernel.ReadInfo(os.Getpid())
	if err != nil {
		return nil, err
	}
	// The run inherits our filters and loads at least its main one.
	st, err := kernel.ReadSeccompState(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("claim audit session %d: %w", ses, err)
	}
	c := claim{ses: ses, owner: sessionOwner{me.PID, me.Start}, rootStart: launched, filters: st.Filters + 1, fence: fence, loginUID: loginUID}
	if err := os.MkdirAll(claimsDir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(claimsDir, strconv.FormatUint(uint64(ses), 10))
	// Written aside and renamed: concurrent Runs read every claim, and
	// must never see a half-written one.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(c.String()), 0o644); err != nil {
		return nil, fmt.Errorf("claim audit session %d: %w", ses, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("claim audit session %d: %w", ses, err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// ReapAbandonedRuns kills the proven processes of runs whose harness is
// gone and drops their claims. It returns what it did and what it would
// not do, for the Result's warnings: nothing here fails the run.
func ReapAbandonedRuns() (warnings []string) {
	entries, err := os.ReadDir(claimsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("abandoned runs not reaped: %v", err)}
	}
	for _, e := range entries {
		ses, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil {
			continue // a claim being written (.tmp)
		}
		path := filepath.Join(claimsDir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue // released meanwhile
		}
		c, ownerOK, err := parseClaim(uint32(ses), string(data))
		if ownerOK && c.owner.alive() {
			continue
		}
		if err == nil {
			err = c.verifiable()
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("claim %s on audit session %d ignored and removed, nothing killed: %v", path, ses, err))
		} else {
			warnings = append(warnings, reapClaim(c)...)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, err.Error())
		}
	}
	return warnings
}

// reapClaim SIGKILLs the processes c proves to be of its run, again until
// none is left (they may fork meanwhile), and names the rest of the
// session, which it leaves alone.
func reapClaim(c claim) (warnings []string) {
	var killed, unproven []string
	seen := map[int]bool{}
	unaccounted := false
	deadline := time.Now().Add(killDeadline)
	for {
		members, err := kernel.SessionMembers(c.ses)
		switch {
		case errors.Is(err, kernel.ErrUnaccounted):
			if !unaccounted {
				unaccounted = true
				warnings = append(warnings, fmt.Sprintf("abandoned run in audit session %d: %v", c.ses, err))
			}
		case err != nil:
			return append(warnings, fmt.Sprintf("abandoned run in audit session %d: %v", c.ses, err))
		}
		unproven = unproven[:0]
		var fds []int
		for _, m := range members {
			fd, ok := openMember(m, Members{ses: c.ses, audited: true})
			if !ok {
				continue
			}
			// The proof is read while the pidfd holds the process: if
			// it is still alive afterwards, the pid named that process.
			proven := c.proves(m.PID)
			if exited, err := kernel.PidfdExited(fd); err != nil || exited || !proven {
				unix.Close(fd)
				if err == nil && !exited {
					unproven = append(unproven, fmt.Sprintf("%d (%s)", m.PID, m.Comm))
				}
				continue
			}
			if err := kernel.PidfdSignal(fd, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
				warnings = append(warnings, fmt.Sprintf("kill %d of an abandoned run: %v", m.PID, err))
			}
			fds = append(fds, fd)
			if !seen[m.PID] {
				seen[m.PID] = true
				killed = append(killed, fmt.Sprintf("%d (%s)", m.PID, m.Comm))
			}
		}
		if len(fds) == 0 {
			break
		}
		waitAnyExited(fds, deadline)
		closeAll(fds)
		if time.Now().After(deadline) {
			warnings = append(warnings, fmt.Sprintf("abandoned run in audit session %d still forking %v after the first SIGKILL", c.ses, killDeadline))
			break
		}
	}
	if len(killed) > 0 {
		warnings = append(warnings, fmt.Sprintf("killed %d processes of an abandoned run (audit session %d, harness pid %d gone): %s",
			len(killed), c.ses, c.owner.pid, strings.Join(killed, ", ")))
	}
	if len(unproven) > 0 {
		warnings = append(warnings, fmt.Sprintf("claim on audit session %d: %d processes of the session do not carry the claimed run's filter and fence, left running: %s",
			c.ses, len(unproven), strings.Join(unproven, ", ")))
	}
	return warnings
}
