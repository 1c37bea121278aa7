package chain

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// simValue is simulateTransaction's result. Agave's current validators add
// the fee, the balances of the transaction's accounts before and after
// (indexed as its account keys: static, then loaded writable, then loaded
// read-only), and the addresses loaded from lookup tables; older ones leave
// those members out.
type simValue struct {
	simRun
	Accounts          []*rpc.Account `json:"accounts"`
	PreBalances       []uint64       `json:"preBalances"`
	PostBalances      []uint64       `json:"postBalances"`
	PreTokenBalances  []tokenBalance `json:"preTokenBalances"`
	PostTokenBalances []tokenBalance `json:"postTokenBalances"`
	LoadedAddresses   *struct {
		Writable []solana.PublicKey `json:"writable"`
		Readonly []solana.PublicKey `json:"readonly"`
	} `json:"loadedAddresses"`
}

// tokenBalance is one token account's balance in a simulation result.
type tokenBalance struct {
	AccountIndex  int               `json:"accountIndex"`
	Mint          solana.PublicKey  `json:"mint"`
	Owner         *solana.PublicKey `json:"owner"`
	UITokenAmount struct {
		Amount string `json:"amount"`
	} `json:"uiTokenAmount"`
}

// hasBalances reports whether the node returned the balances.
func (v *simValue) hasBalances() bool {
	return v.PreBalances != nil && v.PostBalances != nil && v.PreTokenBalances != nil && v.PostTokenBalances != nil &&
		v.LoadedAddresses != nil
}

// errNoBalances means the node's simulateTransaction does not return the
// balances; Simulate then reads the accounts around the simulation.
var errNoBalances = errors.New("simulateTransaction returned no balances")

// simulateWithBalances simulates raw once and measures the wallet's
// outflows from the balances before and after that the node returns with
// the simulation: both come from the one bank the simulation ran on, so no
// read of the accounts is needed before or after, and nothing landing
// meanwhile can be mistaken for the transaction's doing. It returns
// errNoBalances when the node does not return them.
func (s *simulator) simulateWithBalances(ctx context.Context, raw []byte, m solana.Message, wallet solana.PublicKey, fee Fee) (*SimResult, error) {
	v, res, err := s.simulateRaw(ctx, raw, nil, fee)
	if err != nil {
		return res, err
	}
	if !v.hasBalances() {
		return nil, errNoBalances
	}
	if res.Outflows, err = balanceOutflows(wallet, m, v); err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	return res, nil
}

// balanceOutflows measures the wallet's outflows from a simulation's
// balances, as outflows does from the accounts' states: the wallet's
// lamports, its wrapped-SOL accounts by their lamports, and its other token
// accounts by their amounts.
func balanceOutflows(wallet solana.PublicKey, m solana.Message, v *simValue) (Outflows, error) {
	keys := append(append(append([]solana.PublicKey{}, m.AccountKeys...), v.LoadedAddresses.Writable...), v.LoadedAddresses.Readonly...)
	if len(v.PreBalances) != len(keys) || len(v.PostBalances) != len(keys) {
		return Outflows{}, fmt.Errorf("%d and %d balances for %d accounts", len(v.PreBalances), len(v.PostBalances), len(keys))
	}
	pre, post := make([]holding, len(keys)), make([]holding, len(keys))
	w := -1
	for i, k := range keys {
		pre[i].lamports, post[i].lamports = v.PreBalances[i], v.PostBalances[i]
		if k.Equals(wallet) && w < 0 {
			w = i
		}
	}
	if w < 0 {
		return Outflows{}, fmt.Errorf("the wallet %s is not among the transaction's accounts", wallet)
	}
	if err := ownTokens(wallet, v.PreTokenBalances, pre); err != nil {
		return Outflows{}, fmt.Errorf("pre-token balances: %w", err)
	}
	if err := ownTokens(wallet, v.PostTokenBalances, post); err != nil {
		return Outflows{}, fmt.Errorf("post-token balances: %w", err)
	}
	// The wallet first, as outflowsOf wants it; each key once.
	order := []int{w}
	seen := map[solana.PublicKey]bool{wallet: true}
	for i, k := range keys {
		if !seen[k] {
			seen[k] = true
			order = append(order, i)
		}
	}
	pv, qv := make([]holding, len(order)), make([]holding, len(order))
	for j, i := range order {
		pv[j], qv[j] = pre[i], post[i]
	}
	return outflowsOf(pv, qv)
}

// ownTokens marks in hs the token accounts of list that wallet owns, with
// their mints and amounts.
func ownTokens(wallet solana.PublicKey, list []tokenBalance, hs []holding) error {
	for _, tb := range list {
		if tb.AccountIndex < 0 || tb.AccountIndex >= len(hs) {
			return fmt.Errorf("account index %d out of %d accounts", tb.AccountIndex, len(hs))
		}
		if tb.Owner == nil || !tb.Owner.Equals(wallet) {
			continue
		}
		amount, err := strconv.ParseUint(tb.UITokenAmount.Amount, 10, 64)
		if err != nil {
			return fmt.Errorf("account %d: amount %q: %w", tb.AccountIndex, tb.UITokenAmount.Amount, err)
		}
		h := &hs[tb.AccountIndex]
		h.own, h.mint, h.amount = true, tb.Mint, amount
	}
	return nil
}

// simulateRaw calls simulateTransaction without signature verification
// (raw is unsigned by keeper; see Client.Simulate) and on raw's own
// blockhash, at the client's commitment, asking for the post-state of addrs
// when there are any. It returns the node's value and its SimResult
// without outflows, charged fee; a transaction that fails returns that
// SimResult with a *SimError.
func (s *simulator) simulateRaw(ctx context.Context, raw []byte, addrs []solana.PublicKey, fee Fee) (*simValue, *SimResult, error) {
	cfg := map[string]any{"encoding": "base64", "sigVerify": false, "replaceRecentBlockhash": false, "commitment": s.reads.commitment}
	if len(addrs) > 0 {
		cfg["accounts"] = map[string]any{"encoding": "base64", "addresses": addrs}
	}
	floor := s.reads.minContextSlot()
	if floor != nil {
		cfg["minContextSlot"] = *floor // never simulate on state older than what the client saw
	}
	out, err := callJSON[valueOf[*simValue]](ctx, s.reads.pool, "simulateTransaction", []any{base64.StdEncoding.EncodeToString(raw), cfg})
	if err != nil {
		return nil, nil, behind(err, floor)
	}
	v := out.Value
	if v == nil {
		return nil, nil, fmt.Errorf("simulateTransaction: empty answer")
	}
	s.reads.saw(out.Context.Slot)
	res, err := v.result(fee, 0)
	return v, res, err
}

// simRun is what a node says of one simulated transaction's run, in
// simulateTransaction's and simulateBundle's answers alike.
type simRun struct {
	Err           any      `json:"err"`
	Logs          []string `json:"logs"`
	UnitsConsumed *uint64  `json:"unitsConsumed"`
}

// result is the run's SimResult, charged fee, without outflows; a run that
// failed returns it with a *SimError, index naming the transaction in its
// sequence.
func (r simRun) result(fee Fee, index int) (*SimResult, error) {
	res := &SimResult{Logs: r.Logs, Fee: fee}
	if r.UnitsConsumed != nil {
		res.UnitsConsumed = *r.UnitsConsumed
	}
	if r.Err != nil {
		return res, &SimError{Err: normalize(r.Err), Logs: r.Logs, Index: index}
	}
	return res, nil
}
