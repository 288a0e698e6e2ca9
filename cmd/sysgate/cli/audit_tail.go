//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/record"
)

func init() {
	register("audit tail", "stream seccomp audit events live (--raw: every record as captured for testdata)", (*Command).runAuditTail)
}

func (c *Command) runAuditTail(args []string) int {
	fs := c.flagSet("audit tail", "")
	raw := fs.Bool("raw", false, "print every audit record as \"TYPE text\" (the testdata/*.log format), not just parsed seccomp events")
	ses := fs.String("ses", "", "only events of the audit session `ID`")
	format := fs.String("format", "text", "event output: text or json (one object per line)")
	count := fs.Int("count", 0, "stop after this many events or records (0: until interrupted)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if *format != "text" && *format != "json" {
		return c.errorf(ExitUsage, "--format %q: want text or json", *format)
	}
	var sesFilter *uint32
	if *ses != "" {
		v, err := strconv.ParseUint(*ses, 10, 32)
		if err != nil {
			return c.errorf(ExitUsage, "--ses %q: want an audit session id (cat /proc/PID/sessionid)", *ses)
		}
		s := uint32(v)
		sesFilter = &s
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Both callbacks run on the stream's dispatch goroutine; mu only
	// guards against the final read after cancel.
	var mu sync.Mutex
	seen := 0
	emit := func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		c.Stdout.Write(line)
		seen++
		if *count > 0 && seen >= *count {
			cancel()
		}
	}

	var opts auditlog.Options
	if *raw {
		p := record.NewParser()
		opts.Raw = func(typ uint16, data []byte) {
			if sesFilter != nil {
				ev, err := p.Parse(typ, data)
				if err != nil || ev.Ses != *sesFilter {
					return
				}
			}
			emit(fmt.Appendf(nil, "%d %s\n", typ, data))
		}
	}
	stream, err := auditlog.Open(opts)
	if err != nil {
		return c.errorf(ExitInconclusive, "audit tail: %v", err)
	}
	defer stream.Close()
	if !*raw {
		onEvent := func(ev *record.SeccompEvent) { emit(formatEvent(ev, *format == "json")) }
		var sub *auditlog.Subscription
		if sesFilter != nil {
			sub = stream.Subscribe(*sesFilter, onEvent)
		} else {
			sub = stream.SubscribeAll(onEvent)
		}
		defer func() {
			closeCtx, cancelClose := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelClose()
			if loss, err := sub.Close(closeCtx); err != nil || loss.Any() {
				fmt.Fprintf(c.Stderr, "sysgate: audit tail: %v %v\n", loss, err)
			}
		}()
	}
	fmt.Fprintln(c.Stderr, "sysgate: listening to audit records (Ctrl-C to stop)")
	<-ctx.Done()
	if loss := stream.Stats().Loss; loss.Any() {
		fmt.Fprintf(c.Stderr, "sysgate: audit tail: %v\n", loss)
	}
	return ExitOK
}

func formatEvent(ev *record.SeccompEvent, asJSON bool) []byte {
	if asJSON {
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Appendf(nil, "{\"error\":%q}\n", err.Error())
		}
		return append(b, '\n')
	}
	arch := ev.Arch.String()
	if !ev.Arch.Valid() {
		arch = fmt.Sprintf("audit-arch-%#x", ev.AuditArch)
	}
	return fmt.Appendf(nil, "%s serial=%d ses=%d pid=%d uid=%d %s %s(%d) comm=%q exe=%q\n",
		ev.Time.Format("15:04:05.000"), ev.Serial, ev.Ses, ev.PID, ev.UID, arch, ev.Name, ev.Number, ev.Comm, ev.Exe)
}
