package action

// beside holds the lazy journal record being written beside the action
// path, if any: the build's record while the guard simulates, the
// submission's while the transactions go out. Nothing outside the process
// depends on those records, so the path need not wait for them before its
// next round trip; it joins one before its next journal write, which keeps
// the journal's order (built before signed, submitted before the outcome).
// The zero value holds none.
type beside struct {
	done chan besideResult // nil when no write is under way
}

// besideResult is how a write beside the path ended: its error, or the
// value of the panic that stopped it.
type besideResult struct {
	err      error
	panicked any
}

// start runs write in its own goroutine. Join the write under way, if
// any, first.
func (b *beside) start(write func() error) {
	done := make(chan besideResult, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- besideResult{panicked: r}
			}
		}()
		done <- besideResult{err: write()}
	}()
	b.done = done
}

// join waits for the write under way, if any, forgets it, and returns its
// error; a write that panicked panics here with the same value, in the
// path's goroutine, where the run's recovery sees it.
func (b *beside) join() error {
	if b.done == nil {
		return nil
	}
	res := <-b.done
	b.done = nil
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}
