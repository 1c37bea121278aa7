package clmm

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// addrKey identifies one derived address: a position's (key is the
// position mint) or a tick array's (key is the pool, start its first tick).
type addrKey struct {
	program, key solana.PublicKey
	layout       string
	start        int32
	position     bool
}

// tickArrayAddress returns the tick-array account of pool starting at
// start, deriving it once per Reader (a PDA search costs tens of
// microseconds).
func (r *Reader) tickArrayAddress(d Dex, pool solana.PublicKey, start int32) (solana.PublicKey, error) {
	k := addrKey{program: d.ProgramID(), key: pool, layout: d.Name(), start: start}
	return r.address(k, func() (solana.PublicKey, error) { return d.TickArrayAddress(pool, start) })
}

// address returns the address remembered under k, deriving and
// remembering it on first use.
func (r *Reader) address(k addrKey, derive func() (solana.PublicKey, error)) (solana.PublicKey, error) {
	r.mu.Lock()
	addr, ok := r.addrs[k]
	r.mu.Unlock()
	if ok {
		return addr, nil
	}
	addr, err := derive()
	if err != nil {
		return addr, err
	}
	r.mu.Lock()
	if len(r.addrs) > maxHints {
		clear(r.addrs)
	}
	r.addrs[k] = addr
	r.mu.Unlock()
	return addr, nil
}

// tickArraysOf returns the tick-array accounts holding the position's lower
// and upper ticks.
func (r *Reader) tickArraysOf(d Dex, pool solana.PublicKey, pos Position, spacing uint16) ([2]solana.PublicKey, error) {
	var out [2]solana.PublicKey
	for i, tick := range []int32{pos.Range.Lower, pos.Range.Upper} {
		addr, err := r.tickArrayAddress(d, pool, d.TickArrayStart(tick, spacing))
		if err != nil {
			return out, err
		}
		out[i] = addr
	}
	return out, nil
}

// fetched is one fetch's answer, with each tick array decoded at most once
// however many positions read it.
type fetched struct {
	keys   keySet
	data   [][]byte
	arrays map[arrayKey]arrayResult
}

type arrayKey struct {
	addr    solana.PublicKey
	layout  string
	spacing uint16
}

type arrayResult struct {
	a   TickArray
	err error
}

func newFetched(keys keySet, data [][]byte) *fetched {
	return &fetched{keys: keys, data: data, arrays: map[arrayKey]arrayResult{}}
}

// array decodes the tick array at addr (fetched in this call).
func (f *fetched) array(layout Layout, addr solana.PublicKey, spacing uint16) (TickArray, error) {
	k := arrayKey{addr: addr, layout: layout.Name(), spacing: spacing}
	res, ok := f.arrays[k]
	if !ok {
		res.a, res.err = decodeAccount(func(b []byte) (TickArray, error) { return layout.DecodeTickArray(b, spacing) },
			layout.Name(), AccountTickArray, addr, f.data[f.keys.index[addr]])
		f.arrays[k] = res
	}
	return res.a, res.err
}

// owedFromFetch computes st.Owed from one fetch when that fetch holds both
// of the position's tick arrays, and reports whether it did (an error
// computing Owed counts as done: it is recorded in st.OwedErr).
func (r *Reader) owedFromFetch(st *PositionState, f *fetched) bool {
	arrays, err := r.tickArraysOf(st.Request.Dex, st.Request.Pool, st.Position, st.Pool.TickSpacing)
	if err != nil {
		st.OwedErr = err
		return true
	}
	st.TickArrays = arrays
	for _, a := range arrays {
		if _, ok := f.keys.index[a]; !ok {
			return false
		}
	}
	st.Owed, st.OwedErr = computeOwed(st, f)
	return true
}

// computeOwed reads the two boundary ticks and computes what the position
// is owed.
func computeOwed(st *PositionState, f *fetched) (Owed, error) {
	layout := st.Request.Dex.Layout()
	var ticks [2]Tick
	for i, tick := range []int32{st.Position.Range.Lower, st.Position.Range.Upper} {
		t, err := tickFrom(layout, f, st.Request.Pool, st.TickArrays[i], tick, st.Pool.TickSpacing)
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
func tickFrom(layout Layout, f *fetched, pool, addr solana.PublicKey, index int32, spacing uint16) (Tick, error) {
	a, err := f.array(layout, addr, spacing)
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
	f := newFetched(keys, data)
	for _, i := range idx {
		want := states[i].TickArrays
		st := PositionState{Request: states[i].Request, Address: states[i].Address}
		decodeState(&st, keys, data, pools)
		if st.Err == nil && !r.owedFromFetch(&st, f) {
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
