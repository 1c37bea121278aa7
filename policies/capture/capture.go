// Package capture writes what one policy saw and decided in a live run as a
// `keeper test` file (the format policytest reads), so that today's
// situation becomes a regression test. It is linked by the runtime
// (`keeper plan --capture`), so it holds no test harness.
package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/policies"
)

// Situation is one policy's situation as a live run saw it: what it read,
// what the journal said, and what it decided. Write turns it into a test
// file, so that today's situation becomes a regression test.
type Situation struct {
	// PolicyFile is the policy's file, as the test file names it.
	PolicyFile string
	Policy     string
	Now        time.Time
	Obs        *policies.Observation
	History    policies.History
	// PendingSince is the policy's `for` state.
	PendingSince map[string]time.Time
	Result       policies.Result
}

// Write writes c as a `keeper test` file: one test whose observations are
// what was read and whose expectations are what the policy decided (each
// action with its full request, each skip with its reason).
func (c Situation) Write(w io.Writer) error {
	t, err := c.test()
	if err != nil {
		return err
	}
	f := map[string]any{"policy_files": []string{c.PolicyFile}, "tests": []any{t}}
	fmt.Fprintf(w, "# keeper test captured by `keeper plan --capture` at %s: the state policy %s\n# read, and what it decided then.\n",
		c.Now.UTC().Format(time.RFC3339), c.Policy)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return err
	}
	return enc.Close()
}

// test is the one test of c, in the file's shape.
func (c Situation) test() (map[string]any, error) {
	obs, err := c.observations()
	if err != nil {
		return nil, err
	}
	expect := []any{}
	for _, a := range c.Result.Actions {
		e := map[string]any{"policy": a.Policy, "target": a.Target, "kind": string(a.Kind), "reason_contains": a.Reason}
		if a.Alert == nil {
			req, err := viaJSON(a.Request.Body())
			if err != nil {
				return nil, err
			}
			e["request"] = req
		}
		expect = append(expect, e)
	}
	skipped := []any{}
	for _, s := range c.Result.Skipped {
		skipped = append(skipped, map[string]any{"policy": c.Policy, "target": s.Target, "reason": string(s.Reason)})
	}
	t := map[string]any{"name": "captured " + c.Now.UTC().Format(time.RFC3339), "now": c.Now.UTC().Format(time.RFC3339Nano),
		"policies": []string{c.Policy}, "observations": obs, "expect": expect, "skipped": skipped}
	if h := c.history(); h != nil {
		t["history"] = map[string]any{c.Policy: h}
	}
	if len(c.PendingSince) > 0 {
		p := map[string]string{}
		for target, since := range c.PendingSince {
			p[target] = since.UTC().Format(time.RFC3339Nano)
		}
		t["pending_since"] = map[string]any{c.Policy: p}
	}
	return t, nil
}

// observations is c.Obs in the test file's shape: the market's records in
// their wire shape, positions flattened as positionYAML says.
func (c Situation) observations() (map[string]any, error) {
	o := c.Obs
	out := map[string]any{"wallet": o.Wallet, "snapshot_time": o.SnapshotTime.UTC().Format(time.RFC3339Nano)}
	if len(o.Tokens) > 0 {
		toks := map[string]any{}
		for _, mint := range slices.Sorted(maps.Keys(o.Tokens)) {
			t := o.Tokens[mint]
			toks[mint] = map[string]any{"symbol": t.Symbol, "decimals": t.Decimals, "price_usd": t.PriceUSD}
		}
		out["tokens"] = toks
	}
	for key, v := range map[string]any{"loans": o.Loans, "withdrawals": o.Withdrawals, "earn_positions": o.EarnPositions, "vaults": o.Vaults} {
		w, err := viaJSON(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if l, ok := w.([]any); ok && len(l) > 0 {
			out[key] = l
		}
	}
	// Only the first of these can fail in practice: a record that does
	// not convert to JSON.
	err := errors.Join(
		putRecords(out, "positions", o.Positions, readablePosition),
		putRecords(out, "quotes", o.Quotes, quoteRecord),
		putRecords(out, "loops", o.Loops, loopRecord))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// putRecords sets out[key] to the records of items, when there are any.
// record turns an item into its record; nil leaves the item out.
func putRecords[T any](out map[string]any, key string, items []T, record func(T) (any, error)) error {
	var list []any
	for _, it := range items {
		r, err := record(it)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if r != nil {
			list = append(list, r)
		}
	}
	if len(list) > 0 {
		out[key] = list
	}
	return nil
}

// readablePosition is the record of a position, nil for an unreadable
// one: a test states readable positions only.
func readablePosition(p policies.PositionObservation) (any, error) {
	if p.State.Err != nil {
		return nil, nil
	}
	return positionOf(p), nil
}

// quoteRecord is the record of a quote: the pair it was asked for and its
// wire shape.
func quoteRecord(q policies.QuoteObservation) (any, error) {
	return withWire(map[string]any{"principal_mint": q.PrincipalMint, "duration": q.Duration.String()}, "quote", q.Quote)
}

// loopRecord is the record of a loop: the pair it was asked for and its
// wire shape.
func loopRecord(lo policies.LoopObservation) (any, error) {
	return withWire(map[string]any{"principal_mint": lo.PrincipalMint, "collateral_mint": lo.CollateralMint}, "loop", lo.Loop)
}

// withWire adds v, in its wire (JSON) shape, to record under key.
func withWire(record map[string]any, key string, v any) (any, error) {
	w, err := viaJSON(v)
	if err != nil {
		return nil, err
	}
	record[key] = w
	return record, nil
}

// positionOf flattens a position observation into positionYAML's keys.
func positionOf(p policies.PositionObservation) map[string]any {
	st := p.State
	out := map[string]any{"loan": p.Loan, "collateral_index": p.CollateralIndex, "dex": st.Request.Dex.Name(),
		"position_mint": st.Request.PositionMint.String(), "pool": st.Request.Pool.String(),
		"mint_0": st.Pool.Mint0.String(), "mint_1": st.Pool.Mint1.String(),
		"tick_lower": st.Position.Range.Lower, "tick_upper": st.Position.Range.Upper, "tick_current": st.Pool.TickCurrent,
		"tick_spacing": st.Pool.TickSpacing, "liquidity": st.Position.Liquidity.Lo,
		"fees_owed_0": st.Owed.Fees0, "fees_owed_1": st.Owed.Fees1,
		"fees_stored_0": st.Position.FeesOwed0, "fees_stored_1": st.Position.FeesOwed1,
		"rewards_owed": st.Owed.Rewards[:]}
	if st.Pool.HasDecimals {
		out["decimals_0"], out["decimals_1"] = st.Pool.Decimals0, st.Pool.Decimals1
	}
	return out
}

// history is c.History in the file's shape, nil when it says nothing.
func (c Situation) history() map[string]any {
	h := c.History
	if len(h.Targets) == 0 && len(h.SpentToday) == 0 && h.FeesToday == 0 {
		return nil
	}
	targets := map[string]any{}
	for target, th := range h.Targets {
		t := map[string]any{"in_flight": th.InFlight}
		if !th.LastAction.IsZero() {
			t["last_action"] = th.LastAction.UTC().Format(time.RFC3339Nano)
		}
		targets[target] = t
	}
	return map[string]any{"targets": targets, "spent_today": h.SpentToday, "fees_today": h.FeesToday}
}

// viaJSON is v as its JSON encoding decodes into plain values: the wire
// shape of the market's records.
func viaJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return exactNumbers(out), nil
}

// exactNumbers turns the JSON numbers in v into integers where they are
// (so YAML writes 981234567890, not 9.8123456789e+11) and floats otherwise.
func exactNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = exactNumbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(t), 10, 64); err == nil {
			return u
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
