package clmm

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// AccountFetcher reads raw account data, as the RPC method
// getMultipleAccounts does. MultipleAccounts returns one entry per key, in
// order; a nil entry means the account does not exist. An error means the
// whole read failed. Implementations split the keys as the RPC requires (at
// most 100 per getMultipleAccounts request) and should read them at one
// slot, so pools and positions are consistent with each other.
type AccountFetcher interface {
	MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error)
}

// Reader reads CLMM positions, their pools and their boundary tick arrays
// from chain. It remembers which tick arrays each position needed, so a
// later read of the same positions fetches everything in one call. A Reader
// is safe for concurrent use.
type Reader struct {
	fetcher AccountFetcher

	mu    sync.Mutex
	hints map[solana.PublicKey][2]solana.PublicKey // position → its tick arrays, from the last read
	addrs map[addrKey]solana.PublicKey             // derived tick-array addresses
}

// maxHints bounds the remembered tick arrays; past it the memory starts
// afresh (a read without a hint costs one more fetch, nothing else).
const maxHints = 4096

// NewReader returns a Reader that reads accounts through f.
func NewReader(f AccountFetcher) *Reader {
	return &Reader{fetcher: f, hints: map[solana.PublicKey][2]solana.PublicKey{}, addrs: map[addrKey]solana.PublicKey{}}
}

// PositionRequest names one position to read: the market API gives the pool
// id (assetIdentifier) and the position mint of a CLMM collateral.
type PositionRequest struct {
	// Dex is the program holding the position.
	Dex Dex
	// Pool is the pool the position is expected to belong to.
	Pool solana.PublicKey
	// PositionMint is the position (NFT) mint.
	PositionMint solana.PublicKey
}

// PositionState is what [Reader.Read] found for one request.
type PositionState struct {
	// Request is the request this answers.
	Request PositionRequest
	// Address is the position account address (zero if it could not be
	// derived).
	Address solana.PublicKey
	// Position and Pool are the decoded accounts; zero when Err is set.
	Position Position
	Pool     Pool
	// Err is why this position could not be read; usually an
	// [*AccountError] (missing account, bad bytes, position of another pool
	// or mint).
	Err error
	// TickArrays are the tick-array accounts holding the position's lower
	// and upper ticks (the same account twice when one array holds both).
	TickArrays [2]solana.PublicKey
	// Owed is what the position is owed, computed as its program computes
	// it from the pool, the position and the two boundary ticks, all read
	// at one fetch; valid when Err and OwedErr are nil.
	Owed Owed
	// OwedErr is why Owed could not be computed (a missing or foreign tick
	// array, an amount the program itself cannot compute). The position
	// and pool are still valid.
	OwedErr error
}

// Read reads every requested position, its pool and the tick arrays of its
// two boundary ticks, and computes what each position is owed. Positions
// read before are read in one [AccountFetcher.MultipleAccounts] call with
// their tick arrays; a position read for the first time (or whose range
// moved to other tick arrays) needs a second call, which reads its
// position, pool and tick arrays again so all four come from one fetch.
// Each distinct account is fetched once per call. Read returns one state
// per request, in order; a problem with one position is reported in its
// state's Err (or OwedErr) and does not affect the others. Read itself
// fails only when a fetch fails or returns the wrong number of accounts.
func (r *Reader) Read(ctx context.Context, reqs []PositionRequest) ([]PositionState, error) {
	states := make([]PositionState, len(reqs))
	keys := r.plan(reqs, states)
	if len(keys.list) == 0 {
		return states, nil
	}
	data, err := r.fetch(ctx, keys.list)
	if err != nil {
		return nil, err
	}
	pools := make(map[poolKey]poolResult)
	f := newFetched(keys, data)
	var again []int
	for i := range states {
		if states[i].Err != nil {
			continue
		}
		decodeState(&states[i], keys, data, pools)
		if states[i].Err == nil && !r.owedFromFetch(&states[i], f) {
			again = append(again, i)
		}
	}
	if err := r.reread(ctx, states, again); err != nil {
		return nil, err
	}
	r.remember(states)
	return states, nil
}

// keySet is an ordered set of account keys.
type keySet struct {
	list  []solana.PublicKey
	index map[solana.PublicKey]int
}

func (k *keySet) add(key solana.PublicKey) {
	if _, ok := k.index[key]; !ok {
		k.index[key] = len(k.list)
		k.list = append(k.list, key)
	}
}

// plan validates the requests, derives position addresses and collects the
// distinct keys to fetch. Invalid requests get their Err set.
func (r *Reader) plan(reqs []PositionRequest, states []PositionState) keySet {
	keys := keySet{index: make(map[solana.PublicKey]int, 2*len(reqs))}
	for i, req := range reqs {
		states[i].Request = req
		addr, err := r.positionAddress(req)
		if err != nil {
			states[i].Err = fmt.Errorf("clmm: position request %d: %w", i, err)
			continue
		}
		states[i].Address = addr
		keys.add(addr)
		keys.add(req.Pool)
		r.mu.Lock()
		hint, ok := r.hints[addr]
		r.mu.Unlock()
		if ok {
			keys.add(hint[0])
			keys.add(hint[1])
		}
	}
	return keys
}

// positionAddress validates req and returns its position address, derived
// once per Reader and mint (a PDA search costs tens of microseconds).
func (r *Reader) positionAddress(req PositionRequest) (solana.PublicKey, error) {
	k := addrKey{program: req.Dex.ProgramID(), key: req.PositionMint, layout: req.Dex.Name(), position: true}
	return r.address(k, func() (solana.PublicKey, error) { return derivePositionAddress(req) })
}

// derivePositionAddress validates req and derives its position address.
func derivePositionAddress(req PositionRequest) (solana.PublicKey, error) {
	if err := req.Dex.valid(); err != nil {
		return solana.PublicKey{}, err
	}
	if req.Pool.IsZero() {
		return solana.PublicKey{}, errors.New("pool id is not set")
	}
	if req.PositionMint.IsZero() {
		return solana.PublicKey{}, errors.New("position mint is not set")
	}
	addr, _, err := req.Dex.positionAddress(req.PositionMint)
	return addr, err
}

// fetch reads keys and checks the answer's shape.
func (r *Reader) fetch(ctx context.Context, keys []solana.PublicKey) ([][]byte, error) {
	if r.fetcher == nil {
		return nil, errors.New("clmm: reader has no account fetcher")
	}
	data, err := r.fetcher.MultipleAccounts(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("clmm: read %d accounts: %w", len(keys), err)
	}
	if len(data) != len(keys) {
		return nil, fmt.Errorf("clmm: read %d accounts: fetcher returned %d entries", len(keys), len(data))
	}
	return data, nil
}
