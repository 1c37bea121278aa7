package chain

import "time"

// pollBackoff times status polls: the first comes an eighth of the interval
// after the send (at least minPollWait, at most the interval), and each
// later one after twice the wait before it, up to the interval. A
// transaction confirmed in a few slots is then seen a few hundred
// milliseconds after it, not a whole interval later, while a slow one costs
// no more polls than a fixed interval would after the first few.
type pollBackoff struct {
	wait, max time.Duration
	t         *time.Timer
}

// minPollWait is the shortest wait between two polls.
const minPollWait = 50 * time.Millisecond

// newPollBackoff starts the first wait.
func newPollBackoff(interval time.Duration) *pollBackoff {
	p := &pollBackoff{wait: max(interval/8, min(minPollWait, interval)), max: interval}
	p.t = time.NewTimer(p.wait)
	return p
}

// c fires when the current wait is over.
func (p *pollBackoff) c() <-chan time.Time { return p.t.C }

// next starts the next wait, twice the last, at most the interval.
func (p *pollBackoff) next() {
	p.wait = min(2*p.wait, p.max)
	p.t.Reset(p.wait)
}

// stop ends the timer.
func (p *pollBackoff) stop() { p.t.Stop() }
