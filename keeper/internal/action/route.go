package action

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// route is how an attempt's answer is priced and landed, and why.
type route struct {
	// budget is the compute budget keeper asked the market to build in
	// (setupIxs); the guard checks the answer carries exactly it. Nil: the
	// answer is the market's as built.
	budget *signer.Budget
	// tip is the first tip of a bundle priced from the tip floor; 0: the
	// config's floor.
	tip uint64
	// own: keeper set the budget in a message only it signs, where the
	// message already placed its ComputeBudget instructions.
	own bool
	why string
}

// buildRouted builds the attempt's answer and chooses how it lands (see
// route). With pricing off, or a plan that says bundle, the answer is
// built as asked. Otherwise keeper reads the fee market over the accounts
// the answer write-locks and, at the same time, simulates the answer as
// built (see readFeesAndSimulate): with no competition the answer goes out
// as built, and the guard takes that simulation for its own; a repay of
// one transaction is built again with keeper's compute budget as setup
// instructions (limit from the simulated units, price from the fee
// market); any other answer, which keeper may not change, goes as a Jito
// bundle in mode auto, or as built in mode rpc. ok false: out settled the
// attempt.
func (a *attempt) buildRouted(ctx context.Context) (txs []built, out Outcome, ok bool) {
	key := market.IdempotencyKey(a.att.IdempotencyKey)
	if a.p.Submit.Mode == journal.ModeBundle && !a.p.Submit.Auto {
		return a.bundled(ctx, key)
	}
	if a.e.cfg.Priority.Fees == nil {
		return a.built(ctx, key, a.p.Request)
	}
	repay := a.p.Request.BuildLoan != nil
	if !repay || a.pricing.units == 0 {
		if txs, out, ok = a.built(ctx, key, a.p.Request); !ok {
			return nil, out, false
		}
		if !a.measure(txs) {
			return txs, "", true // the path's own checks say what is wrong with it
		}
		key += "-priced" // the plain answer took the attempt's key
	}
	mkt, price, err := a.readFeesAndSimulate(ctx, txs)
	switch {
	case errors.Is(err, ErrAboveCap):
		return nil, a.aboveCap(ctx, err), false
	case err != nil && txs == nil:
		a.log.Warn("Cannot read the fee market; building the answer unpriced", "err", err)
		return a.built(ctx, key, a.p.Request)
	case err != nil:
		a.log.Warn("Cannot read the fee market; sending the answer as built", "err", err)
		return txs, "", true
	case mkt == 0 && txs != nil:
		a.route.why = "no competing writes on its accounts: sent as built"
		return txs, "", true
	case price == 0:
		return a.built(ctx, key, a.p.Request)
	case !repay || len(txs) > 1:
		if own, ok := a.priceOwn(txs, mkt, price); ok {
			return own, "", true
		}
		return a.unpriceable(ctx, txs, mkt)
	case a.pricing.units == 0:
		units, ok := a.simulatedUnits()
		if !ok {
			return txs, "", true // the path's own simulation says what is wrong with it
		}
		a.pricing.units = units
	}
	b := a.budget(a.pricing.units, price)
	limit := b.Limit
	a.pricing.price = price
	a.route.budget = &b
	a.route.why = fmt.Sprintf("priced through the build: %d µlamports/unit (market p%d %d), limit %d units from simulation",
		price, pctOf(a.p), mkt, limit)
	return a.built(ctx, key, withBudget(a.p.Request, *a.route.budget))
}

// built asks the market to build req under key, a repay from collateral
// through its sale (buildCollateral, collateral.go). A sale's quote the
// bounds refuse settles the attempt as refused under the rule; any other
// failure as a failed build.
func (a *attempt) built(ctx context.Context, key market.IdempotencyKey, req policies.Request) ([]built, Outcome, bool) {
	var txs []built
	var err error
	if cr := req.CollateralRepay; cr != nil {
		txs, err = a.buildCollateral(ctx, key, cr)
	} else {
		txs, err = build(ctx, a.e.cfg.Builder, key, req)
	}
	if r, ok := errors.AsType[*signer.Refusal](err); ok {
		return nil, a.refuse(ctx, journal.Rule(r.Rule), "swap: "+r.Error()), false
	}
	if err != nil {
		return nil, a.buildFailed(ctx, err), false
	}
	return txs, "", true
}

// measure records the accounts the answer write-locks; false when it
// cannot be decoded (the guard then refuses it as built).
func (a *attempt) measure(txs []built) bool {
	decoded := make([]*signer.Tx, len(txs))
	for i, t := range txs {
		tx, err := t.decode()
		if err != nil {
			return false
		}
		decoded[i] = tx
	}
	a.pricing.accounts = writable(decoded)
	return true
}

// readFeesAndSimulate reads the fee market (see bid) and, at the same
// time, simulates the first transaction of txs, the answer as built,
// unsigned (see asBuilt); both reads are done when it returns. With no
// answer yet (a repay built priced at once) it only reads the fee market.
func (a *attempt) readFeesAndSimulate(ctx context.Context, txs []built) (mkt, price uint64, err error) {
	var wg sync.WaitGroup
	if len(txs) > 0 {
		wg.Go(func() { a.asBuilt = a.simulateAsBuilt(ctx, txs[0]) })
	}
	mkt, price, err = a.bid(ctx)
	wg.Wait()
	return mkt, price, err
}

// asBuilt is the simulation of an answer's first transaction as the market
// built it, made beside the fee read: the compute units a priced build's
// limit is sized from, and the guard's own simulation when that same
// transaction is sent (see answer.simulateOne).
type asBuilt struct {
	// unsigned is the wire form simulated: our signature slot zero, as
	// the guard makes it (Signer.Unsigned).
	unsigned []byte
	res      *chain.SimResult
	err      error
}

// simulateAsBuilt simulates t unsigned for the wallet, as the guard
// would; nil when t cannot be decoded or made unsigned (the guard then
// refuses it on its own).
func (a *attempt) simulateAsBuilt(ctx context.Context, t built) *asBuilt {
	tx, err := t.decode()
	if err != nil {
		return nil
	}
	raw, err := a.e.cfg.Signer.Unsigned(tx)
	if err != nil {
		return nil
	}
	res, err := a.e.cfg.Submitter.Simulate(ctx, raw, a.e.wallet)
	return &asBuilt{unsigned: raw, res: res, err: err}
}

// simulatedUnits returns the compute units the answer as built consumed
// in its simulation beside the fee read; false when it was not simulated
// or failed.
func (a *attempt) simulatedUnits() (uint64, bool) {
	if a.asBuilt == nil {
		return 0, false
	}
	if err := a.asBuilt.err; err != nil {
		a.log.Info("Cannot simulate the unpriced answer to size its compute limit", "err", err)
		return 0, false
	}
	return a.asBuilt.res.UnitsConsumed, true
}

// priceOwn sets the compute budget of an answer of one transaction that
// only keeper signs (no foreign signature to void): the limit from its
// unsigned simulation, the price bid. false: the answer is not keeper's
// alone, or cannot be simulated or rewritten.
func (a *attempt) priceOwn(txs []built, mkt, price uint64) ([]built, bool) {
	if len(txs) != 1 {
		return nil, false
	}
	tx, err := txs[0].decode()
	if err != nil || !tx.OnlySigner(a.e.wallet) {
		return nil, false
	}
	units, ok := a.simulatedUnits()
	if !ok {
		return nil, false
	}
	b := a.budget(units, price)
	msg, err := signer.Reprice(tx, a.e.wallet, b)
	if err != nil {
		a.log.Warn("Cannot set the compute budget of keeper's own transaction", "err", err)
		return nil, false
	}
	a.pricing.price = price
	a.route.budget, a.route.own = &b, true
	a.route.why = fmt.Sprintf("keeper's own transaction priced: %d µlamports/unit (market %d), limit %d units from simulation", price, mkt, b.Limit)
	return []built{{api: &market.Transaction{Message: base64.StdEncoding.EncodeToString(msg)}}}, true
}

// budget is the compute budget keeper asks for a transaction that
// consumed units in simulation without it: the limit with room for the two
// ComputeBudget instructions and the margin, at price.
func (a *attempt) budget(units, price uint64) signer.Budget {
	limit := chain.UnitLimit(units+2*chain.BudgetInstructionUnits, max(a.e.cfg.Priority.UnitMargin, 1))
	return signer.Budget{Limit: limit, Price: price, HasLimit: true, HasPrice: true}
}

// bundled builds an answer the plan sends as a bundle, its first tip the
// tip floor's percentile when keeper reads it.
func (a *attempt) bundled(ctx context.Context, key market.IdempotencyKey) ([]built, Outcome, bool) {
	if a.e.cfg.Priority.TipFloor != nil {
		tip, err := a.tipBid(ctx)
		if err != nil {
			return nil, a.aboveCap(ctx, err), false
		}
		a.route.tip = tip
	}
	return a.built(ctx, key, a.p.Request)
}

// unpriceable routes an answer keeper may not price: in mode auto as a
// Jito bundle tipped from the tip floor, in mode rpc as built, saying it
// cannot be priced.
func (a *attempt) unpriceable(ctx context.Context, txs []built, mkt uint64) ([]built, Outcome, bool) {
	if !a.p.Submit.Auto {
		a.route.why = fmt.Sprintf("cannot be priced (the market co-signs it and its endpoint takes no setup instructions); sent as built under a market price of %d µlamports/unit", mkt)
		a.log.Warn("The answer cannot be priced; sending it as built", "market_price", mkt)
		return txs, "", true
	}
	tip, err := a.tipBid(ctx)
	if err != nil {
		return nil, a.aboveCap(ctx, err), false
	}
	a.p.Submit.Mode = journal.ModeBundle
	a.route.tip = tip
	a.route.why = fmt.Sprintf("co-signed answer on contested accounts (market %d µlamports/unit): sent as a Jito bundle tipping %d lamports", mkt, tip)
	return txs, "", true
}

// aboveCap ends the action: the market's price is above its cap, and
// nothing is overpaid.
func (a *attempt) aboveCap(ctx context.Context, err error) Outcome {
	a.e.cfg.Metrics.PriceAboveCap.WithLabelValues(a.p.Policy).Inc()
	a.log.Error("Not acting: the fee market is above the cap", "err", err)
	return a.settle(ctx, journal.Outcome{State: journal.StateFailed, Rule: journal.RulePriceAboveCap, Detail: err.Error()})
}

// withBudget returns req with keeper's compute budget as the setup
// instructions of its first step, unified into one transaction.
func withBudget(req policies.Request, b signer.Budget) policies.Request {
	bl := *req.BuildLoan
	bl.Steps = append([]market.Step(nil), bl.Steps...)
	unify := true
	params := bl.Steps[0].Params
	params.SetupIxs = []market.Instruction{budgetIx(signer.SetUnitLimitData(b.Limit)), budgetIx(signer.SetUnitPriceData(b.Price))}
	params.UnifySetup = &unify
	bl.Steps[0].Params = params
	req.BuildLoan = &bl
	return req
}

// budgetIx is a ComputeBudget instruction in the market's form: data in
// base64 (assumption M-32).
func budgetIx(data []byte) market.Instruction {
	return market.Instruction{ProgramID: solana.ComputeBudget.String(), Data: base64.StdEncoding.EncodeToString(data), Accounts: []market.AccountMeta{}}
}

// pctOf is the plan's fee percentile.
func pctOf(p Plan) int { return cmp.Or(p.Submit.Percentile, DefaultPercentile) }
