package sim

import (
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// Address returns the address of a thing the scenario names: Address(KindLoan, "repay-me").
func (s *Sim) Address(kind, name string) (solana.PublicKey, bool) {
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
func (s *Sim) Loan(address solana.PublicKey) (market.LoanItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.w.LoanByAddr[address]
	if !ok {
		return market.LoanItem{}, fmt.Errorf("sim: unknown loan %s", address)
	}
	st, err := s.loanState(info)
	if err != nil {
		return market.LoanItem{}, err
	}
	v := &loanView{info: info, addr: info.Address.String(), st: st, now: s.clock.Now().Unix(), lenders: map[string]bool{}}
	if err := s.fillLoanItem(v, s.w.Snapshot(s.clock.Now())); err != nil {
		return market.LoanItem{}, err
	}
	return v.item, nil
}

// Position returns a CLMM position (by its mint) and its pool, as their accounts hold them now.
func (s *Sim) Position(mint solana.PublicKey) (clmm.Position, clmm.Pool, error) {
	pos, ok := s.w.PosByMint[mint]
	if !ok {
		return clmm.Position{}, clmm.Pool{}, fmt.Errorf("sim: unknown position mint %s", mint)
	}
	return s.positionState(pos)
}

// WithdrawalRequest returns a queued earn withdrawal as the withdrawal-queue read shows it.
func (s *Sim) WithdrawalRequest(id solana.PublicKey) (market.WithdrawalRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.w.Requests[id]
	if !ok {
		return market.WithdrawalRequest{}, fmt.Errorf("sim: unknown withdrawal request %s", id)
	}
	out := market.WithdrawalRequest{RequestID: id.String(), Wallet: r.Wallet.String(), RequestedAmount: market.Amount(r.Requested),
		FilledAmount: market.Amount(r.Filled), CreatedTime: market.UnixTime(r.Created)}
	if st, open := s.requestState(r); open {
		out.FilledAmount = market.Amount(st.Filled)
	} else {
		out.ClaimedAmount = out.FilledAmount
	}
	return out, nil
}

// Strategy returns a strategy's balances and terms as the vault listing shows them now.
func (s *Sim) Strategy(address solana.PublicKey) (market.VaultStrategy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	views, err := s.strategyViews(s.clock.Now().Unix())
	if err != nil {
		return market.VaultStrategy{}, err
	}
	v, ok := views[address]
	if !ok {
		return market.VaultStrategy{}, fmt.Errorf("sim: unknown strategy %s", address)
	}
	return v.record(&programs.Vault{Strategy: v.info}, false).VaultStrategy, nil
}

// Price returns a mint's current oracle price in USD per whole token.
func (s *Sim) Price(mint solana.PublicKey) (float64, bool) { return s.w.Price(mint) }

// Balance returns a wallet's lamports on chain.
func (s *Sim) Balance(wallet solana.PublicKey) uint64 { return s.chain.State.Balance(wallet) }

// TokenBalance returns a wallet's balance of mint (its associated token account) on chain.
func (s *Sim) TokenBalance(wallet, mint solana.PublicKey) uint64 {
	return s.chain.State.TokenBalance(wallet, mint)
}
