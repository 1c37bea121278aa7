package policytest

import (
	"bytes"
	"crypto/sha256"
	"time"

	"github.com/gagliardetto/solana-go"
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// observations builds the Observation of a test (on is its node).
func (l *loader) observations(on *yaml.Node, test string, o *observationsYAML, now time.Time) *policies.Observation {
	obs := &policies.Observation{Wallet: o.Wallet, SnapshotTime: now, Tokens: map[string]policies.Token{}}
	if obs.Wallet == "" {
		obs.Wallet = DefaultWallet
	}
	if o.SnapshotTime != "" {
		obs.SnapshotTime = l.parseTime(on, test, o.SnapshotTime, "snapshot_time")
	}
	for mint, t := range o.Tokens {
		obs.Tokens[mint] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals, PriceUSD: t.PriceUSD}
	}
	obs.Loans = wire[market.LoanItem](l, strictyaml.Find(on, "loans"), test, "loans", o.Loans)
	obs.Withdrawals = wire[market.WithdrawalQueue](l, strictyaml.Find(on, "withdrawals"), test, "withdrawals", o.Withdrawals)
	obs.EarnPositions = wire[market.EarnPosition](l, strictyaml.Find(on, "earn_positions"), test, "earn_positions", o.EarnPositions)
	obs.Vaults = wire[market.Vault](l, strictyaml.Find(on, "vaults"), test, "vaults", o.Vaults)
	for i := range o.Quotes {
		if q, ok := l.quote(strictyaml.Find(on, "quotes", i), test, &o.Quotes[i]); ok {
			obs.Quotes = append(obs.Quotes, q)
		}
	}
	for i := range o.Loops {
		if lo, ok := l.loop(strictyaml.Find(on, "loops", i), test, &o.Loops[i]); ok {
			obs.Loops = append(obs.Loops, lo)
		}
	}
	for i := range o.Positions {
		if p, ok := l.position(strictyaml.Find(on, "positions", i), test, &o.Positions[i]); ok {
			obs.Positions = append(obs.Positions, p)
		}
	}
	return obs
}

func (l *loader) quote(n *yaml.Node, test string, q *quoteYAML) (policies.QuoteObservation, bool) {
	out := policies.QuoteObservation{PrincipalMint: q.PrincipalMint}
	d, err := policies.ParseTerm(q.Duration)
	if err != nil {
		l.fail(strictyaml.Find(n, "duration"), test, "quotes: %v", err)
		return out, false
	}
	out.Duration = d
	if q.Quote.n == nil {
		l.fail(n, test, "quotes: quote is required (a quote record in the wire shape)")
		return out, false
	}
	return out, l.decodeRecord(q.Quote.n, test, "quotes", &out.Quote)
}

// decodeRecord decodes a wire-shape record, reporting a problem at the
// offending key.
func (l *loader) decodeRecord(n *yaml.Node, test, what string, dst any) bool {
	if err := decodeWire(n, dst); err != nil {
		at := n
		if ke, ok := err.(*keyError); ok {
			at = ke.node
		}
		l.fail(at, test, "%s: %v", what, err)
		return false
	}
	return true
}

func (l *loader) loop(n *yaml.Node, test string, lo *loopYAML) (policies.LoopObservation, bool) {
	out := policies.LoopObservation{PrincipalMint: lo.PrincipalMint, CollateralMint: lo.CollateralMint}
	if lo.PrincipalMint == "" || lo.CollateralMint == "" || lo.Loop.n == nil {
		l.fail(n, test, "loops: principal_mint, collateral_mint and loop (a loop record in the wire shape) are required")
		return out, false
	}
	return out, l.decodeRecord(lo.Loop.n, test, "loops", &out.Loop)
}

// testProgram is the made-up program id of a test dex.
func testProgram(layout string) solana.PublicKey {
	return solana.PublicKey(sha256.Sum256([]byte("policytest program " + layout)))
}

// position builds a CLMM position observation from the simplified shape.
// The pool's sqrt price is the one of its current tick.
func (l *loader) position(n *yaml.Node, test string, p *positionYAML) (policies.PositionObservation, bool) {
	before := len(l.errs)
	dex, err := clmm.NewDex(p.Dex, testProgram(p.Dex))
	if err != nil {
		l.fail(strictyaml.Find(n, "dex"), test, "positions: dex must be dex-a or dex-b, got %q", p.Dex)
	}
	key := func(field, v string, required bool) solana.PublicKey {
		if v == "" && !required {
			return solana.PublicKey{}
		}
		k, err := solana.PublicKeyFromBase58(v)
		if err != nil {
			l.fail(strictyaml.Find(n, field), test, "positions: %s %q is not a base58 public key", field, v)
		}
		return k
	}
	mint, pool := key("position_mint", p.PositionMint, true), key("pool", p.Pool, true)
	m0, m1 := key("mint_0", p.Mint0, false), key("mint_1", p.Mint1, false)
	r := clmm.Range{Lower: p.TickLower, Upper: p.TickUpper}
	if err := r.Validate(); err != nil {
		l.fail(strictyaml.Find(n, "tick_lower"), test, "positions: %v", err)
	}
	if p.TickSpacing == 0 {
		l.fail(strictyaml.Find(n, "tick_spacing"), test, "positions: tick_spacing must be positive")
	}
	sqrt, err := clmm.SqrtPriceX64FromRawPrice(clmm.PriceAtTick(p.TickCurrent))
	if err != nil {
		l.fail(strictyaml.Find(n, "tick_current"), test, "positions: tick_current: %v", err)
	}
	if len(l.errs) > before {
		return policies.PositionObservation{}, false
	}
	st := clmm.PositionState{
		Request:  clmm.PositionRequest{Dex: dex, Pool: pool, PositionMint: mint},
		Position: clmm.Position{Pool: pool, Mint: mint, Range: r, Liquidity: clmm.U128From64(p.Liquidity), FeesOwed0: p.FeesOwed0, FeesOwed1: p.FeesOwed1},
		Pool:     clmm.Pool{Mint0: m0, Mint1: m1, TickSpacing: p.TickSpacing, TickCurrent: p.TickCurrent, SqrtPriceX64: sqrt},
		// A test states what the position is owed; the account is taken
		// as just touched, so the stored figure is the same.
		Owed: clmm.Owed{Fees0: p.FeesOwed0, Fees1: p.FeesOwed1},
	}
	if p.FeesStored0 != nil {
		st.Position.FeesOwed0 = *p.FeesStored0
	}
	if p.FeesStored1 != nil {
		st.Position.FeesOwed1 = *p.FeesStored1
	}
	if len(p.RewardsOwed) > clmm.NumRewards {
		l.fail(strictyaml.Find(n, "rewards_owed"), test, "positions: rewards_owed has %d slots, at most %d", len(p.RewardsOwed), clmm.NumRewards)
	}
	copy(st.Owed.Rewards[:], p.RewardsOwed)
	if p.Decimals0 != nil && p.Decimals1 != nil {
		st.Pool.HasDecimals, st.Pool.Decimals0, st.Pool.Decimals1 = true, *p.Decimals0, *p.Decimals1
	}
	return policies.PositionObservation{Loan: p.Loan, CollateralIndex: p.CollateralIndex, State: st}, true
}
