package keeper

import (
	"log/slog"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// systemd tells the service manager how the daemon is doing, under
// Type=notify units: READY once recovery is done and the policies are
// scheduled, STOPPING when it begins to stop, and WATCHDOG pings while the
// scheduler fires on time (WatchdogSec=). Without NOTIFY_SOCKET (not under
// systemd) every call is a no-op.
type systemd struct {
	logger *slog.Logger
}

// notify sends state, logging a failure (never fatal).
func (s systemd) notify(state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		s.logger.Warn("Cannot notify systemd", "state", state, "err", err)
	}
}

func (s systemd) ready()    { s.notify(daemon.SdNotifyReady) }
func (s systemd) stopping() { s.notify(daemon.SdNotifyStopping) }

// watchdogEvery is how often to ping the watchdog: half its timeout, or 0
// when systemd expects no pings.
func (s systemd) watchdogEvery() time.Duration {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		s.logger.Warn("Ignoring a malformed watchdog setting", "err", err)
		return 0
	}
	return d / 2
}

// ping tells the watchdog the daemon is alive, unless the scheduler has
// stalled: then systemd restarts keeper, and recovery settles what was in
// flight.
func (s systemd) ping(sched *scheduler, now time.Time) {
	if policy := sched.stalled(now); policy != "" {
		s.logger.Error("Scheduler stalled: not pinging the watchdog", "policy", policy)
		return
	}
	s.notify(daemon.SdNotifyWatchdog)
}
