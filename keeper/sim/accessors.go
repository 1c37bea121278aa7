package sim

import (
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// Accounts reads the market's accounts as the market API shows them: the addresses the scenario names,
// loans, CLMM positions, withdrawal requests, strategies, oracle prices and balances.
type Accounts struct {
	*world
	views *views
}

// Address returns the address of a thing the scenario names: Address(KindLoan, "repay-me").
func (s *Accounts) Address(kind, name string) (solana.PublicKey, bool) {
	w := s.w
	switch kind {
	case ids.KindMint:
		if m, ok := w.MintBySym[name]; ok {
			return m.Address, true
		}
	case ids.KindWallet:
		if name == genesis.WalletPlaceholder {
			return w.Wallet, true
		}
		k, ok := w.Wallets[name]
		return k, ok
	case ids.KindRequest:
		vault, req, _ := strings.Cut(name, "/")
		for _, e := range w.Earn {
			if r := genesis.RequestNamed(e, req); e.Name == vault && r != nil {
				return r.Address, true
			}
		}
	default:
		addr, ok := w.Named[kind][name]
		return addr, ok
	}
	return solana.PublicKey{}, false
}

// Loan returns a loan's summary item as loans-info would show it now.
func (s *Accounts) Loan(address solana.PublicKey) (apiwire.LoanItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, err := known(s.w.LoanByAddr, address, "loan")
	if err != nil {
		return apiwire.LoanItem{}, err
	}
	st, err := s.accts.loan(info)
	if err != nil {
		return apiwire.LoanItem{}, err
	}
	v := &loanView{info: info, addr: info.Address.String(), st: st, now: s.clock.Now().Unix(), lenders: map[string]bool{}}
	if err := s.views.fillLoanItem(v, s.w.Snapshot(s.clock.Now())); err != nil {
		return apiwire.LoanItem{}, err
	}
	return v.item, nil
}

// Position returns a CLMM position (by its mint) and its pool, as their accounts hold them now.
func (s *Accounts) Position(mint solana.PublicKey) (clmm.Position, clmm.Pool, error) {
	pos, err := known(s.w.PosByMint, mint, "position mint")
	if err != nil {
		return clmm.Position{}, clmm.Pool{}, err
	}
	return s.accts.position(pos)
}

// WithdrawalRequest returns a queued earn withdrawal as the withdrawal-queue read shows it.
func (s *Accounts) WithdrawalRequest(id solana.PublicKey) (apiwire.WithdrawalRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := known(s.w.Requests, id, "withdrawal request")
	if err != nil {
		return apiwire.WithdrawalRequest{}, err
	}
	out := apiwire.WithdrawalRequest{RequestID: id.String(), Wallet: r.Wallet.String(), RequestedAmount: apiwire.Amount(r.Requested),
		FilledAmount: apiwire.Amount(r.Filled), CreatedTime: apiwire.UnixTime(r.Created)}
	if st, open := s.accts.request(r); open {
		out.FilledAmount = apiwire.Amount(st.Filled)
	} else {
		out.ClaimedAmount = out.FilledAmount
	}
	return out, nil
}

// Strategy returns a strategy's balances and terms as the vault listing shows them now.
func (s *Accounts) Strategy(address solana.PublicKey) (apiwire.VaultStrategy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	views, err := s.views.strategyViews(s.clock.Now().Unix())
	if err != nil {
		return apiwire.VaultStrategy{}, err
	}
	v, ok := views[address]
	if !ok {
		return apiwire.VaultStrategy{}, fmt.Errorf("sim: unknown strategy %s", address)
	}
	return v.record(&programs.Vault{Strategy: v.info}, false).VaultStrategy, nil
}

// Price returns a mint's current oracle price in USD per whole token.
func (s *Accounts) Price(mint solana.PublicKey) (float64, bool) { return s.w.Price(mint) }

// Balance returns a wallet's lamports on chain.
func (s *Accounts) Balance(wallet solana.PublicKey) uint64 { return s.chain.State.Balance(wallet) }

// TokenBalance returns a wallet's balance of mint (its associated token account) on chain.
func (s *Accounts) TokenBalance(wallet, mint solana.PublicKey) uint64 {
	return s.chain.State.TokenBalance(wallet, mint)
}

// known returns the entry of m at key, or an error naming the what that key is not.
func known[T any](m map[solana.PublicKey]T, key solana.PublicKey, what string) (T, error) {
	v, ok := m[key]
	if !ok {
		return v, fmt.Errorf("sim: unknown %s %s", what, key)
	}
	return v, nil
}

// tickArrayKeys returns the tick-array accounts of a range's lower and
// upper ticks in pool.
func tickArrayKeys(pool *programs.Pool, r clmm.Range) (lower, upper solana.PublicKey) {
	b := pool.Book()
	return b.Address(b.Start(r.Lower)), b.Address(b.Start(r.Upper))
}

// PositionTicks returns the position of mint, its pool and the ticks at its lower and upper bounds,
// read together from chain (position, pool and both tick arrays at one instant).
func (s *Accounts) PositionTicks(mint solana.PublicKey) (clmm.Position, clmm.Pool, [2]clmm.Tick, error) {
	var ticks [2]clmm.Tick
	pos, err := known(s.w.PosByMint, mint, "position mint")
	if err != nil {
		return clmm.Position{}, clmm.Pool{}, ticks, err
	}
	ps, pool, err := s.accts.position(pos)
	if err != nil {
		return ps, pool, ticks, err
	}
	lo, up := tickArrayKeys(pos.Pool, ps.Range)
	accts, exists := s.chain.State.Accounts([]solana.PublicKey{pos.Address, pos.Pool.Address, lo, up})
	layout := pos.Pool.Dex.Layout
	if ps, err = layout.DecodePosition(accts[0].Data); err != nil {
		return ps, pool, ticks, err
	}
	if pool, err = layout.DecodePool(accts[1].Data); err != nil {
		return ps, pool, ticks, err
	}
	b := pos.Pool.Book()
	for i, tick := range []int32{ps.Range.Lower, ps.Range.Upper} {
		if !exists[2+i] {
			return ps, pool, ticks, fmt.Errorf("sim: tick array of tick %d: %w", tick, errMissing)
		}
		if err := b.Load(b.Start(tick), accts[2+i].Data); err != nil {
			return ps, pool, ticks, err
		}
		ticks[i] = *b.Tick(tick)
	}
	return ps, pool, ticks, nil
}

// PositionOwed returns what the position of mint is owed at the current chain state, computed from
// its pool and tick arrays by its program's arithmetic: what a claim made now would pay.
func (s *Accounts) PositionOwed(mint solana.PublicKey) (clmm.Owed, error) {
	pos, pool, ticks, err := s.PositionTicks(mint)
	if err != nil {
		return clmm.Owed{}, err
	}
	return s.w.PosByMint[mint].Pool.Dex.Layout.Owed(pool, pos, ticks[0], ticks[1])
}
