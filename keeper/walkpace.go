package keeper

import (
	"fmt"
	"time"
)

// minPagesForRate is how many pages a walk reads before its own pace,
// rather than the configured rate limit, predicts when it will end.
const minPagesForRate = 8

// checkPace says, once, that the walk cannot end before the next run of
// one of its readers' policies is due, with the figures an operator needs
// to change that: the pages, the page size, the pace, the time the pass
// takes and the time it has. It is said again only after a walk of the
// same readers has ended in time. finished is set when the walk has read
// its last page.
func (tw *tickWalk) checkPace(finished bool) {
	if tw.reported || tw.total == 0 {
		return
	}
	due := tw.due()
	if due.IsZero() {
		return
	}
	now := tw.w.o.now()
	elapsed := now.Sub(tw.start)
	rate := tw.w.rps // pages a second: one request a page
	if tw.pages >= minPagesForRate && elapsed > 0 {
		rate = float64(tw.pages) / elapsed.Seconds()
	}
	end := now
	if !finished {
		if rate <= 0 {
			return
		}
		end = now.Add(time.Duration(float64(tw.total-tw.pages) / rate * float64(time.Second)))
	}
	if !end.After(due) {
		return
	}
	tw.reported = true
	if !tw.w.setSlow(tw.key, true) {
		return // said already, and no walk of these readers has ended in time since
	}
	tw.w.o.logger.Warn("A pass over the loans cannot end before the next tick: ticks will be skipped until it does",
		"policies", len(tw.readers), "pages", tw.total, "pages_read", tw.pages, "page_size", tw.size,
		"pages_per_second", round2(rate), "rate_limit_rps", tw.w.rps, "pass_takes", end.Sub(tw.start).Round(time.Second),
		"next_tick_in", due.Sub(tw.start).Round(time.Second), "change", tw.advice(due.Sub(tw.start), end.Sub(tw.start)))
}

// due is the earliest time a reader's policy should run next (zero: none
// says).
func (tw *tickWalk) due() time.Time {
	var due time.Time
	for _, rd := range tw.readers {
		if !rd.due.IsZero() && (due.IsZero() || rd.due.Before(due)) {
			due = rd.due
		}
	}
	return due
}

// advice says what would let a walk of the announced pages, which takes
// pass, end within interval: the rate it needs (with a quarter to spare),
// larger pages, or a longer schedule.
func (tw *tickWalk) advice(interval, pass time.Duration) string {
	need := float64(tw.total) / max(interval.Seconds(), 1)
	return fmt.Sprintf("raise market.rate_limit.rps to at least %.1f if the market allows it, "+
		"or market.page_size above %d if the market takes larger pages, "+
		"or schedule these policies at least %s apart", need*1.25, tw.size, (pass * 5 / 4).Round(time.Second))
}

// round2 rounds x to two decimals, for logs.
func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
