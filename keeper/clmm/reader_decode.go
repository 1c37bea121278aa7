package clmm

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// poolKey identifies a decoded pool: the same address could in principle be
// requested under two layouts.
type poolKey struct {
	addr   solana.PublicKey
	layout string
}

type poolResult struct {
	pool Pool
	err  error
}

// decodeState fills st from the fetched data, decoding each pool once.
func decodeState(st *PositionState, keys keySet, data [][]byte, pools map[poolKey]poolResult) {
	req := st.Request
	layout := req.Dex.Layout()
	pos, err := decodeAccount(layout.DecodePosition, layout.Name(), AccountPosition, st.Address, data[keys.index[st.Address]])
	if err == nil {
		err = checkPosition(layout.Name(), st.Address, pos, req)
	}
	if err != nil {
		st.Err = err
		return
	}
	pk := poolKey{addr: req.Pool, layout: layout.Name()}
	res, ok := pools[pk]
	if !ok {
		res.pool, res.err = decodeAccount(layout.DecodePool, layout.Name(), AccountPool, req.Pool, data[keys.index[req.Pool]])
		pools[pk] = res
	}
	if res.err != nil {
		st.Err = res.err
		return
	}
	st.Position, st.Pool = pos, res.pool
}

// decodeAccount decodes one account's bytes, reporting a missing account and
// naming the address in any error.
func decodeAccount[T any](decode func([]byte) (T, error), dex, kind string, addr solana.PublicKey, b []byte) (T, error) {
	var zero T
	if b == nil {
		return zero, &AccountError{Dex: dex, Account: kind, Address: addr, Err: ErrMissing}
	}
	v, err := decode(b)
	if err != nil {
		return zero, withAddress(err, dex, kind, addr)
	}
	return v, nil
}

// checkPosition verifies that the position belongs to the requested pool and
// mint.
func checkPosition(dex string, addr solana.PublicKey, pos Position, req PositionRequest) error {
	if pos.Mint != req.PositionMint {
		return &AccountError{Dex: dex, Account: AccountPosition, Address: addr,
			Err: fmt.Errorf("%w: position mint is %s, want %s", ErrMismatch, pos.Mint, req.PositionMint)}
	}
	if pos.Pool != req.Pool {
		return &AccountError{Dex: dex, Account: AccountPosition, Address: addr,
			Err: fmt.Errorf("%w: position belongs to pool %s, not the requested pool %s", ErrMismatch, pos.Pool, req.Pool)}
	}
	return nil
}
