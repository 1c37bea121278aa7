package signer

import (
	"slices"

	"github.com/gagliardetto/solana-go"
)

// check is one run of the guard over a transaction.
type check struct {
	g      *guard
	tx     *Tx
	m      *message
	kind   Kind
	perm   permissions
	bounds *bounds
	wallet uint8 // our slot, which is also our static key index
	tally  tally
}

// check runs every rule for kind and bounds b over tx and returns the first
// refusal, or an error about the bounds themselves.
func (g *guard) check(tx *Tx, kind Kind, b Bounds) error {
	perm, ok := kindPermissions[kind]
	if !ok {
		return refuse(RuleUnknownKind, "unknown action kind %q", kind)
	}
	cb, err := compileBounds(b)
	if err != nil {
		return err
	}
	c := &check{g: g, tx: tx, m: tx.msg, kind: kind, perm: perm, bounds: cb}
	for _, step := range []func() error{c.signers, c.nonce, c.instructions, c.totals} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// signers: we sign, we pay (unless allowed otherwise), everyone else has
// signed and is a known co-signer.
func (c *check) signers() error {
	slot := c.m.signerIndex(c.g.wallet)
	if slot < 0 {
		return refuse(RuleNotASigner, "our key %s is not among the %d required signers", c.g.wallet, c.m.header.numRequiredSignatures)
	}
	c.wallet = uint8(slot)
	if payer := c.m.keys[0]; payer != c.g.wallet {
		if !c.g.allowFeePayer {
			return refuse(RuleFeePayer, "fee payer is %s, not our key", payer)
		}
		if c.g.coSigners != nil && !c.g.coSigners[payer] {
			return refuse(RuleFeePayer, "fee payer %s is not a known co-signer", payer)
		}
	}
	for i, sig := range c.tx.sigs {
		key := c.m.keys[i]
		if i == slot {
			continue
		}
		if sig.IsZero() {
			return refuse(RuleMissingSignature, "required signer %d (%s) has not signed", i, key)
		}
		if c.g.coSigners != nil && !c.g.coSigners[key] {
			return refuse(RuleUnknownCoSigner, "required signer %d (%s) is not a known co-signer", i, key)
		}
	}
	return nil
}

// nonce: a durable nonce only when allowed.
func (c *check) nonce() error {
	if _, ok := c.tx.DurableNonce(); ok && !c.g.allowNonce {
		return refuseIx(RuleDurableNonce, 0, solana.SystemProgramID,
			"the transaction advances a durable nonce and would not expire with its blockhash")
	}
	return nil
}

// instructions: every program on the kind's allowlist, then the rules of the
// programs the guard understands. Other programs are opaque here; the
// simulation check covers what they move.
func (c *check) instructions() error {
	allowed := c.g.programs[c.kind]
	for i, ix := range c.m.ixs {
		prog := c.m.keys[ix.program]
		if !allowed[prog] {
			return refuseIx(RuleProgramNotAllowed, i, prog, "program is not on the %s allowlist", c.kind)
		}
		x := ixCheck{c: c, i: i, ix: ix, prog: prog}
		var err error
		switch prog {
		case solana.SystemProgramID:
			err = x.system()
		case solana.TokenProgramID, solana.Token2022ProgramID:
			err = x.token()
		case solana.SPLAssociatedTokenAccountProgramID:
			err = x.associatedToken()
		case solana.ComputeBudget:
			err = x.computeBudget()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ixCheck is the guard's look at one instruction of a check: where it sits,
// its program, and the check whose tally it adds to. The rules of the
// programs the guard understands (rules_system.go, rules_token.go,
// rules_budget.go) are its methods.
type ixCheck struct {
	c    *check
	i    int
	ix   instruction
	prog solana.PublicKey
}

// touches reports whether the instruction passes our wallet to its program.
// Our signature only reaches programs of instructions that do.
func (x ixCheck) touches() bool {
	return slices.Contains(x.ix.accounts, x.c.wallet)
}

// refuse refuses the instruction under rule.
func (x ixCheck) refuse(rule Rule, format string, args ...any) *Refusal {
	return refuseIx(rule, x.i, x.prog, format, args...)
}
