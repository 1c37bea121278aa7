package genesis

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// Collateral asset types of the simulator (the spec shows no values).
const (
	assetTypeToken int32 = 0
	assetTypeDexA  int32 = 1
	assetTypeDexB  int32 = 2
)

// loans compiles the loans and their accounts.
func (c *loanCompiler) loans() {
	names := map[string]bool{}
	for i, ls := range c.sc.Loans {
		at := p("loans", i)
		if !c.uniqueName(at, "loan", i, ls.Name, names[ls.Name]) {
			continue
		}
		names[ls.Name] = true
		info := &programs.Loan{Name: ls.Name, Address: c.derive(ids.MarketProgramID, "loan", ls.Name, append(at, "name"))}
		st := &state.Loan{
			Borrower: c.walletRef(ls.Borrower, append(at, "borrower"), "borrower").String(),
			ID:       int64(i + 1), Nonce: int64(i), StartTime: c.unix(ls.Started, "-1d", append(at, "started")),
			Closed: ls.Closed, LoanType: ls.LoanType, FundingType: ls.FundingType, WriteVersion: 1,
		}
		st.LastInteractedTime, st.Status = st.StartTime, state.LoanStatusActive
		if ls.Closed {
			st.Status = state.LoanStatusRepaid
		}
		_, bump, _ := ids.PDA(ids.MarketProgramID, "loan", ls.Name)
		st.Bump = int(bump)
		for j, cs := range ls.Collateral {
			c.collateral(info, st, cs, j, append(at, "collateral", j))
		}
		for j, lg := range ls.Ledgers {
			c.ledger(st, lg, j, len(ls.Ledgers), append(at, "ledgers", j))
		}
		c.history(st, ls, at)
		for j, r := range ls.Rollovers {
			c.rollover(st, r, append(at, "rollovers", j))
		}
		c.inflows(st)
		c.w.Loans = append(c.w.Loans, info)
		c.w.Name(ids.KindLoan, info.Name, info.Address)
		c.w.LoanByAddr[info.Address] = info
		c.putJSONAccount(info.Address, st, at)
	}
}

// collateral compiles one collateral slot; plain tokens are minted to the loan's token account.
func (c *loanCompiler) collateral(info *programs.Loan, st *state.Loan, cs scenario.CollateralSpec, j int, at []any) {
	col := state.Collateral{Index: j, ID: st.ID*10 + int64(j), WriteVersion: 1, LastInteractedTime: st.StartTime}
	switch {
	case cs.Position != "" && cs.Mint == "":
		pos := positionNamed(c.w, cs.Position)
		if pos == nil {
			c.failAt(append(at, "position"), "unknown position %q", cs.Position)
			return
		}
		if pos.Loan != nil {
			c.failAt(append(at, "position"), "position %q is already collateral of loan %q", cs.Position, pos.Loan.Name)
			return
		}
		pos.Loan = info
		col.AssetIdentifier, col.AssetMint, col.Dex = pos.Pool.Address.String(), pos.Mint.String(), pos.Pool.Dex.Name
		col.AssetType = assetTypeDexA
		if pos.Pool.Dex.Name == clmm.DexB {
			col.AssetType = assetTypeDexB
		}
		col.Amount = c.clmm.posStates[pos].Liquidity.Lo
	case cs.Mint != "" && cs.Position == "":
		m := c.mint(cs.Mint, append(at, "mint"), "mint")
		if m == nil {
			return
		}
		col.AssetIdentifier, col.AssetMint, col.AssetType = m.Address.String(), m.Address.String(), assetTypeToken
		col.Amount = c.units(cs.Amount, m, append(at, "amount"))
		if col.Amount > 0 {
			c.gen.Tokens = append(c.gen.Tokens, Grant{Wallet: info.Address, Mint: m.Address, Amount: col.Amount})
		}
	default:
		c.failAt(at, "collateral %d: give either mint and amount, or position", j)
		return
	}
	st.Collateral = append(st.Collateral, col)
}

// ledger compiles one ledger.
func (c *loanCompiler) ledger(st *state.Loan, lg scenario.LedgerSpec, j, n int, at []any) {
	strat := strategyNamed(c.w, lg.Strategy)
	if strat == nil {
		c.failAt(append(at, "strategy"), "unknown strategy %q", lg.Strategy)
		return
	}
	term, err := units.ParseTerm(lg.Term)
	if err != nil {
		c.failAt(append(at, "term"), "%v", err)
		return
	}
	secs, _ := units.TermSeconds(term)
	l := state.Ledger{
		Index: j, Strategy: strat.Address.String(), PrincipalMint: strat.Mint.Address.String(),
		PrincipalDue:    c.units(lg.Principal, strat.Mint, append(at, "principal")),
		PrincipalRepaid: c.units(lg.Repaid, strat.Mint, append(at, "repaid")),
		Apy:             lg.Apy, Duration: term.Duration, DurationType: int32(term.DurationType),
		StartTime: st.StartTime, ID: st.ID*10 + int64(j), WriteVersion: 1,
		MarketInformation: ids.DerivedKey("market-information", strat.Name).String(),
	}
	if lg.Started != "" {
		l.StartTime = c.unix(lg.Started, "", append(at, "started"))
	}
	l.EndTime, l.LastInterestUpdatedTime, l.LastInteractedTime = l.StartTime+secs, l.StartTime, l.StartTime
	if lg.Loop {
		l.IsLoop = 1
	}
	if l.PrincipalRepaid > l.PrincipalDue {
		c.failAt(append(at, "repaid"), "repaid exceeds principal")
	}
	l.Status = state.LedgerStatusActive
	if l.Outstanding() == 0 {
		l.Status = state.LedgerStatusRepaid
	}
	if l.Apy == 0 {
		l.Apy = c.defaultAPY(strat, st, term)
	}
	l.LtvRatios, l.LqtRatios, l.Weights = c.ratioRows(strat, st, lg, n, at)
	st.Ledgers = append(st.Ledgers, l)
}

// defaultAPY returns the strategy's APY for the loan's first collateral and the term, from the
// scenario's terms.
func (c *loanCompiler) defaultAPY(strat *programs.Strategy, st *state.Loan, term instr.Term) int64 {
	if len(st.Collateral) == 0 {
		return 0
	}
	for _, ss := range c.sc.Strategies {
		if ss.Name != strat.Name {
			continue
		}
		for _, ts := range ss.Terms {
			if c.assetRefQuiet(ts.Collateral) != st.Collateral[0].AssetIdentifier {
				continue
			}
			for k, v := range ts.Apys {
				if d, err := units.ParseTerm(k); err == nil && d == term {
					return v
				}
			}
		}
	}
	return 0
}

// assetRefQuiet resolves an asset like assetRef without recording failures.
func (c *loanCompiler) assetRefQuiet(s string) string {
	if m, ok := c.w.MintBySym[s]; ok {
		return m.Address.String()
	}
	if pl := poolNamed(c.w, s); pl != nil {
		return pl.Address.String()
	}
	return ""
}

// ratioRows returns a ledger's LTV, LQT and weight rows, defaulting from the strategy's terms and to
// an equal share of each collateral among the loan's ledgers.
func (c *loanCompiler) ratioRows(strat *programs.Strategy, st *state.Loan, lg scenario.LedgerSpec, n int, at []any) (ltv, lqt, w []int64) {
	terms := map[string]scenario.TermSpec{}
	for _, ss := range c.sc.Strategies {
		if ss.Name == strat.Name {
			for _, ts := range ss.Terms {
				terms[c.assetRefQuiet(ts.Collateral)] = ts
			}
		}
	}
	for _, col := range st.Collateral {
		ltv = append(ltv, terms[col.AssetIdentifier].Ltv)
		lqt = append(lqt, terms[col.AssetIdentifier].Lqt)
		w = append(w, int64(apiwire.CBPSOne)/int64(max(n, 1)))
	}
	for _, row := range []struct {
		name string
		in   []int64
		out  *[]int64
	}{{"ltv", lg.Ltv, &ltv}, {"lqt", lg.Lqt, &lqt}, {"weights", lg.Weights, &w}} {
		if row.in == nil {
			continue
		}
		if len(row.in) != len(st.Collateral) {
			c.failAt(append(at, row.name), "%s has %d entries for %d collateral slots", row.name, len(row.in), len(st.Collateral))
			continue
		}
		*row.out = row.in
	}
	return ltv, lqt, w
}

// history compiles a loan's collateral history, by default one AddCollateral per slot at the start.
func (c *loanCompiler) history(st *state.Loan, ls scenario.LoanSpec, at []any) {
	if len(ls.History) == 0 {
		for _, col := range st.Collateral {
			st.History = append(st.History, state.HistoryEvent{Time: st.StartTime, Kind: state.EventAddCollateral,
				AssetIdentifier: col.AssetIdentifier, AssetMint: col.AssetMint, Amount: col.Amount})
		}
		return
	}
	for j, hs := range ls.History {
		hat := append(at, "history", j)
		ev := state.HistoryEvent{Time: c.unix(hs.At, "", append(hat, "at")), Kind: hs.Kind}
		switch hs.Kind {
		case state.EventAddCollateral, state.EventRemoveCollateral:
			ev.AssetIdentifier = c.assetRef(hs.Asset, append(hat, "asset"), "asset")
			ev.AssetMint = ev.AssetIdentifier
			for _, col := range st.Collateral {
				if col.AssetIdentifier == ev.AssetIdentifier {
					ev.AssetMint = col.AssetMint
				}
			}
			ev.Amount = c.rawAmount(hs.Amount, ev.AssetIdentifier, append(hat, "amount"))
		case state.EventLiquidate, state.EventRepayPrincipal:
			ev.Amount = c.principalAmount(st, hs.Amount, append(hat, "amount"))
			for k, ts := range hs.Transfers {
				id := c.assetRef(ts.Asset, append(hat, "transfers", k, "asset"), "asset")
				ev.Transfers = append(ev.Transfers, state.CollateralTransfer{AssetMint: id, ToLiquidator: ts.ToLiquidator,
					Amount: c.rawAmount(ts.Amount, id, append(hat, "transfers", k, "amount"))})
			}
		default:
			c.failAt(append(hat, "kind"), "unknown history kind %q (AddCollateral, RemoveCollateral, Liquidate, RepayPrincipal)", hs.Kind)
		}
		st.History = append(st.History, ev)
	}
}

// rawAmount parses an amount of an asset: whole tokens of a mint, or a raw integer for a pool
// (CLMM liquidity).
func (c *loanCompiler) rawAmount(s, asset string, path []any) uint64 {
	k, err := solana.PublicKeyFromBase58(asset)
	if err == nil {
		if m, ok := c.w.MintByAddr[k]; ok {
			return c.units(s, m, path)
		}
	}
	v, err := units.ParseInteger(s)
	if err != nil {
		c.failAt(path, "%v", err)
	}
	return v
}

// principalAmount parses an amount of the loan's first principal mint.
func (c *loanCompiler) principalAmount(st *state.Loan, s string, path []any) uint64 {
	if len(st.Ledgers) == 0 {
		return c.rawAmount(s, "", path)
	}
	return c.rawAmount(s, st.Ledgers[0].PrincipalMint, path)
}

// rollover adds a rollover PnL marker.
func (c *loanCompiler) rollover(st *state.Loan, at string, path []any) {
	mint := ""
	if len(st.Collateral) > 0 {
		mint = st.Collateral[0].AssetMint
	}
	st.Markers = append(st.Markers, state.Marker{Date: c.unix(at, "", path), Type: state.MarkerRollover,
		NewCollateralMint: mint, PreviousCollateralMint: mint})
}

// inflows sets the borrower's net inflows from the history and the ledgers, at the initial prices.
func (c *loanCompiler) inflows(st *state.Loan) {
	var first string
	if len(st.Collateral) > 0 {
		first = st.Collateral[0].AssetMint
	}
	for _, ev := range st.History {
		usd, tokens := c.eventValue(st, ev, first)
		switch ev.Kind {
		case state.EventAddCollateral:
			st.Inflow.CollateralUSD += usd
			st.Inflow.CollateralTokens += tokens
			if ev.Time == st.StartTime {
				st.Inflow.InitialCollateralUSD += usd
				st.Inflow.InitialCollateral += tokens
			}
		case state.EventRemoveCollateral:
			st.Inflow.CollateralUSD -= usd
			st.Inflow.CollateralTokens -= tokens
		}
	}
	for _, l := range st.Ledgers {
		k, _ := solana.PublicKeyFromBase58(l.PrincipalMint)
		m := c.w.MintByAddr[k]
		net := float64(l.PrincipalRepaid) - float64(l.PrincipalDue)
		st.Inflow.PrincipalUSD += c.w.Usd(k, l.PrincipalRepaid) - c.w.Usd(k, l.PrincipalDue)
		if m != nil {
			st.Inflow.PrincipalTokens += net / units.Pow10(m.Decimals)
		}
	}
}

// eventValue returns the USD value of a collateral event at the initial prices, and its amount in
// whole tokens when it is of the first collateral's mint.
func (c *loanCompiler) eventValue(st *state.Loan, ev state.HistoryEvent, first string) (usd, tokens float64) {
	k, err := solana.PublicKeyFromBase58(ev.AssetMint)
	if err != nil {
		return 0, 0
	}
	if m, ok := c.w.MintByAddr[k]; ok {
		usd = c.w.Usd(k, ev.Amount)
		if ev.AssetMint == first {
			tokens = units.WholeTokens(ev.Amount, m.Decimals)
		}
		return usd, tokens
	}
	if pos, ok := c.w.PosByMint[k]; ok {
		return c.w.Snapshot(c.start).PositionUSD(pos.Pool, c.clmm.poolStates[pos.Pool], c.clmm.posStates[pos]), 0
	}
	return 0, 0
}
