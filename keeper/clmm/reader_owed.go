package clmm

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// tickArraysOf returns the tick-array accounts holding the position's lower
// and upper ticks.
func tickArraysOf(d Dex, pool solana.PublicKey, pos Position, spacing uint16) ([2]solana.PublicKey, error) {
	var out [2]solana.PublicKey
	for i, tick := range []int32{pos.Range.Lower, pos.Range.Upper} {
		addr, err := d.TickArrayAddress(pool, d.TickArrayStart(tick, spacing))
		if err != nil {
			return out, err
		}
		out[i] = addr
	}
	return out, nil
}

// owedFromFetch computes st.Owed from one fetch's data when that fetch
// holds both of the position's tick arrays, and reports whether it did (an
// error computing Owed counts as done: it is recorded in st.OwedErr).
func owedFromFetch(st *PositionState, keys keySet, data [][]byte) bool {
	arrays, err := tickArraysOf(st.Request.Dex, st.Request.Pool, st.Position, st.Pool.TickSpacing)
	if err != nil {
		st.OwedErr = err
		return true
	}
	st.TickArrays = arrays
	var raw [2][]byte
	for i, a := range arrays {
		at, ok := keys.index[a]
		if !ok {
			return false
		}
		raw[i] = data[at]
	}
	st.Owed, st.OwedErr = computeOwed(st, raw)
	return true
}

// computeOwed decodes the two tick arrays and computes what the position
// is owed.
func computeOwed(st *PositionState, raw [2][]byte) (Owed, error) {
	layout := st.Request.Dex.Layout()
	var ticks [2]Tick
	for i, tick := range []int32{st.Position.Range.Lower, st.Position.Range.Upper} {
		t, err := tickFrom(layout, st.Request.Pool, st.TickArrays[i], raw[i], tick, st.Pool.TickSpacing)
		if err != nil {
			return Owed{}, err
		}
		ticks[i] = t
	}
	owed, err := layout.Owed(st.Pool, st.Position, ticks[0], ticks[1])
	if err != nil {
		return Owed{}, &AccountError{Dex: layout.Name(), Account: AccountPosition, Address: st.Address, Err: err}
	}
	return owed, nil
}

// tickFrom decodes one tick array, checks it belongs to pool, and returns
// the tick at index.
func tickFrom(layout Layout, pool, addr solana.PublicKey, b []byte, index int32, spacing uint16) (Tick, error) {
	a, err := decodeAccount(func(b []byte) (TickArray, error) { return layout.DecodeTickArray(b, spacing) },
		layout.Name(), AccountTickArray, addr, b)
	if err != nil {
		return Tick{}, err
	}
	fail := func(err error) error {
		return &AccountError{Dex: layout.Name(), Account: AccountTickArray, Address: addr, Err: err}
	}
	if a.Pool != pool {
		return Tick{}, fail(fmt.Errorf("%w: tick array belongs to pool %s, not %s", ErrMismatch, a.Pool, pool))
	}
	if want := layout.TickArrayStart(index, spacing); a.Start != want {
		return Tick{}, fail(fmt.Errorf("%w: tick array starts at %d, want %d", ErrMismatch, a.Start, want))
	}
	t, err := a.Tick(index, spacing)
	if err != nil {
		return Tick{}, fail(fmt.Errorf("%w: %w", ErrInvalid, err))
	}
	return t, nil
}

// reread fetches, in one call, the position, pool and tick arrays of each
// state in idx (positions whose tick arrays the first fetch did not hold),
// and replaces those states with what that call read, so the four accounts
// of each come from one fetch. A position whose range moved between the
// two fetches gets an OwedErr.
func (r *Reader) reread(ctx context.Context, states []PositionState, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	keys := keySet{index: map[solana.PublicKey]int{}}
	for _, i := range idx {
		keys.add(states[i].Address)
		keys.add(states[i].Request.Pool)
		keys.add(states[i].TickArrays[0])
		keys.add(states[i].TickArrays[1])
	}
	data, err := r.fetch(ctx, keys.list)
	if err != nil {
		return err
	}
	pools := make(map[poolKey]poolResult)
	for _, i := range idx {
		want := states[i].TickArrays
		st := PositionState{Request: states[i].Request, Address: states[i].Address}
		decodeState(&st, keys, data, pools)
		if st.Err == nil && !owedFromFetch(&st, keys, data) {
			st.OwedErr = &AccountError{Dex: st.Request.Dex.Name(), Account: AccountPosition, Address: st.Address,
				Err: fmt.Errorf("%w: range moved from tick arrays %s, %s while being read", ErrMismatch, want[0], want[1])}
		}
		states[i] = st
	}
	return nil
}

// remember records the tick arrays of every position read, for the next
// read.
func (r *Reader) remember(states []PositionState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.hints) > maxHints {
		clear(r.hints)
	}
	for _, st := range states {
		if st.Err == nil && !st.TickArrays[0].IsZero() {
			r.hints[st.Address] = st.TickArrays
		}
	}
}
