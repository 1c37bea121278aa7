package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
)

func TestVaultDeposits(t *testing.T) {
	e := newEnv(t, Options{})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	type rec struct {
		vault string
		users []string
	}
	tests := []struct {
		name string
		q    market.VaultDepositsQuery
		want []rec
	}{
		{"all", market.VaultDepositsQuery{}, []rec{{"alpha-vault", []string{"$wallet", "alice"}}, {"beta-vault", []string{"lender", "bob"}}, {"gamma-vault", []string{"bob"}}}},
		{"vault", market.VaultDepositsQuery{VaultAddresses: []string{a(ids.KindVault, "beta-vault")}}, []rec{{"beta-vault", []string{"lender", "bob"}}}},
		{"user", market.VaultDepositsQuery{UserAddress: a(ids.KindWallet, "bob")}, []rec{{"beta-vault", []string{"bob"}}, {"gamma-vault", []string{"bob"}}}},
		{"principal mint", market.VaultDepositsQuery{PrincipalMints: []string{a(ids.KindMint, "SOL")}}, []rec{{"gamma-vault", []string{"bob"}}}},
		{"lp mint", market.VaultDepositsQuery{LpMints: []string{e.sim.w.Vaults[0].LPMint.String()}}, []rec{{"alpha-vault", []string{"$wallet", "alice"}}}},
		{"stake duration", market.VaultDepositsQuery{StakeDuration: ptr(market.StakeDuration(1))}, []rec{{"alpha-vault", []string{"alice"}}}},
		{"status", market.VaultDepositsQuery{Status: ptr(market.PositionStatus(1))}, []rec{{"beta-vault", []string{"bob"}}}},
		{"sorted by amount, first page", market.VaultDepositsQuery{PrincipalMints: []string{a(ids.KindMint, "USDC")},
			Sort: ptr(market.VaultSortKey(0)), SortDirection: ptr(market.SortDescending), PageSize: ptr(2)},
			[]rec{{"beta-vault", []string{"lender"}}, {"alpha-vault", []string{"$wallet"}}}},
		{"second page", market.VaultDepositsQuery{Page: ptr(1), PageSize: ptr(2)}, []rec{{"beta-vault", []string{"lender", "bob"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.market.VaultDeposits(e.ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var recs []rec
			for _, vd := range got {
				r := rec{vault: e.nameOf(ids.KindVault, vd.VaultAddress)}
				for _, ud := range vd.UserDeposits {
					r.users = append(r.users, e.nameOf(ids.KindWallet, ud.UserAddress))
				}
				recs = append(recs, r)
			}
			if !slices.EqualFunc(recs, tc.want, func(a, b rec) bool { return a.vault == b.vault && slices.Equal(a.users, b.users) }) {
				t.Errorf("got %v, want %v", recs, tc.want)
			}
		})
	}
}

// nameOf returns the scenario name of an address of a kind ("$wallet" for the operator).
func (e *env) nameOf(kind, addr string) string {
	if kind == ids.KindWallet && addr == testWallet().String() {
		return genesis.WalletPlaceholder
	}
	for _, n := range []string{"alice", "bob", "lender", "alpha-vault", "beta-vault", "gamma-vault", "alpha", "beta", "gamma"} {
		if k, ok := e.sim.Accounts().Address(kind, n); ok && k.String() == addr {
			return n
		}
	}
	return addr
}

func TestBestQuote(t *testing.T) {
	e := newEnv(t, Options{})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	sol, usdc := a(ids.KindMint, "SOL"), a(ids.KindMint, "USDC")
	req := func(amount market.Amount, override *float64, excluded ...int32) market.QuoteRequest {
		return market.QuoteRequest{PrincipalMint: usdc, Duration: 7, DurationType: market.DurationDays, ExcludedExternalYield: excluded,
			CollateralFilter: []market.CollateralFilter{{Amount: amount, AssetData: market.SplAssetData(sol), PriceOverride: override}}}
	}
	tests := []struct {
		name   string
		at     time.Duration
		q      market.QuoteRequest
		want   string // strategy name, "" for no quote
		apy    market.CBPS
		amount market.Amount
	}{
		// The wallet's own alpha is never quoted to it; beta has 100,000 USDC idle.
		{"best other", 0, req(0, nil), "beta", 100_000, 100_000_000_000},
		{"after beta lowers", 6 * time.Second, req(0, nil), "beta", 90_000, 100_000_000_000},
		// 10 SOL × 150 USD × 65 % LTV = 975 USDC.
		{"borrow capacity", 0, req(10_000_000_000, nil), "beta", 100_000, 975_000_000},
		// 10 SOL × 100 USD (override) × 65 % = 650 USDC.
		{"price override", 0, req(10_000_000_000, ptr(100.0)), "beta", 100_000, 650_000_000},
		{"external yield excluded", 0, req(0, nil, 1), "", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.advance(t, tc.at)
			got, err := e.market.BestQuotes(e.ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("quotes %+v, want none", got)
				}
				return
			}
			want := market.Quote{Amount: tc.amount, Apy: tc.apy, CollateralIdentifier: sol, Lqt: 850_000, Ltv: 650_000, Strategy: a(ids.KindStrategy, tc.want)}
			if len(got) != 1 || got[0] != want {
				t.Errorf("quotes %+v, want [%+v]", got, want)
			}
		})
	}
	_, err := e.market.BestQuotes(e.ctx, market.QuoteRequest{PrincipalMint: usdc,
		CollateralFilter: []market.CollateralFilter{{AssetData: market.AssetData{}}}})
	if err == nil || !strings.Contains(err.Error(), "Spl variant") {
		t.Errorf("quote without Spl asset data: %v", err)
	}
}

func TestVaultsAndMetrics(t *testing.T) {
	e := newEnv(t, Options{})
	page, err := e.market.Vaults(e.ctx, market.VaultsQuery{IncludeRewards: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 || page.PageInfo.TotalItems != 3 {
		t.Fatalf("%d vaults, pageInfo %+v", len(page.Items), page.PageInfo)
	}
	v := page.Items[0]
	st := v.VaultStrategy.Strategy
	if st.TokenBalance != 60_000_000_000 || st.ExternalYieldAmount != 40_000_000_000 || st.CurrentDeployedAmount != 4_000_000_000 ||
		st.Authority != testWallet().String() || len(v.VaultRewardsSchedule) != 1 {
		t.Errorf("alpha-vault record %+v", v)
	}
	term, ok := v.Term(e.addr(t, ids.KindMint, "SOL").String())
	if !ok || term.CurrentAllocation != 4_000_000_000 || term.MaxAllocationPct != "50" {
		t.Errorf("alpha SOL term %+v", term)
	}
	jto := e.addr(t, ids.KindMint, "JTO").String()
	price := func(m string) (float64, bool) {
		return market.RewardPrice(2.5, 9, 1, 6), m == jto
	}
	before := market.ComputeVaultMetrics(v, e.sim.Now(), price)
	e.advance(t, 31*time.Second)
	page, _ = e.market.Vaults(e.ctx, market.VaultsQuery{IncludeRewards: true})
	after := market.ComputeVaultMetrics(page.Items[0], e.sim.Now(), price)
	if before.TotalAPY < 0.07 || after.TotalAPY > 0.01 || after.ActiveSchedules != 0 {
		t.Errorf("alpha-vault total APY %v → %v (active schedules %d), want > 7 %% then < 1 %%", before.TotalAPY, after.TotalAPY, after.ActiveSchedules)
	}
	plain, _ := e.market.Vaults(e.ctx, market.VaultsQuery{PageSize: ptr(2), Page: ptr(1)})
	if len(plain.Items) != 1 || len(plain.Items[0].VaultRewardsSchedule) != 0 || plain.PageInfo.TotalPages != 2 {
		t.Errorf("page 1 of size 2: %+v", plain)
	}
}

func TestLoops(t *testing.T) {
	e := newEnv(t, Options{})
	pair := e.addr(t, ids.KindMint, "USDC").String() + "-" + e.addr(t, ids.KindMint, "SOL").String()
	tests := []struct {
		name string
		q    market.LoopsQuery
		want []string
	}{
		{"all", market.LoopsQuery{}, []string{"jitosol-sol", "sol-usdc"}},
		{"slug", market.LoopsQuery{Identifiers: []string{"jitosol-sol"}}, []string{"jitosol-sol"}},
		{"mint pair", market.LoopsQuery{Identifiers: []string{pair}}, []string{"sol-usdc"}},
		{"tag", market.LoopsQuery{Tags: []string{"lst"}}, []string{"jitosol-sol"}},
		{"both filters", market.LoopsQuery{Identifiers: []string{"jitosol-sol"}, Tags: []string{"majors"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.market.Loops(e.ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range got {
				ids = append(ids, l.Identifier)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("loops %v, want %v", ids, tc.want)
			}
		})
	}
}

func TestEarnReads(t *testing.T) {
	e := newEnv(t, Options{})
	vault := e.addr(t, ids.KindEarn, "usdc-earn").String()
	pos, err := e.market.EarnPosition(e.ctx, market.EarnPositionRequest{Address: vault, Wallet: testWallet().String()})
	if err != nil {
		t.Fatal(err)
	}
	if pos.Shares != 1_000_000_000 || pos.Assets != 1_020_000_000 || len(pos.OpenWithdrawalRequests) != 2 ||
		pos.OpenWithdrawalRequests[0].OnChainRequestAddr != e.addr(t, ids.KindRequest, "usdc-earn/r-full").String() {
		t.Errorf("position %+v", pos)
	}
	states := func() []market.WithdrawalState {
		q, err := e.market.WithdrawalQueue(e.ctx, market.WithdrawalQueueRequest{Address: vault, Wallet: testWallet().String()})
		if err != nil {
			t.Fatal(err)
		}
		var out []market.WithdrawalState
		for _, r := range q.Requests {
			out = append(out, r.State())
		}
		return out
	}
	if got := states(); !slices.Equal(got, []market.WithdrawalState{market.WithdrawalPartiallyFilled, market.WithdrawalOpen}) {
		t.Errorf("before fills: %v", got)
	}
	e.advance(t, 20*time.Second)
	if got := states(); !slices.Equal(got, []market.WithdrawalState{market.WithdrawalFilled, market.WithdrawalPartiallyFilled}) {
		t.Errorf("after fills: %v", got)
	}
	all, _ := e.market.WithdrawalQueue(e.ctx, market.WithdrawalQueueRequest{Address: vault})
	if len(all.Requests) != 3 {
		t.Errorf("queue of every wallet holds %d requests, want 3", len(all.Requests))
	}
}
