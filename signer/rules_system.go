package signer

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// System program instruction tags (bincode u32, little-endian).
const (
	systemCreateAccount         = 0
	systemTransfer              = 2
	systemCreateAccountWithSeed = 3
)

var systemNames = map[uint32]string{
	0: "CreateAccount", 1: "Assign", 2: "Transfer", 3: "CreateAccountWithSeed", 4: "AdvanceNonceAccount",
	5: "WithdrawNonceAccount", 6: "InitializeNonceAccount", 7: "AuthorizeNonceAccount", 8: "Allocate",
	9: "AllocateWithSeed", 10: "AssignWithSeed", 11: "TransferWithSeed", 12: "UpgradeNonceAccount",
}

// system checks a System instruction that involves our wallet. Allowed: create
// an account we fund (the lamports count against the bound unless the answer
// closes that account back to us), transfer SOL to ourselves or, as the kind
// permits, into our wrapped-SOL account (not an outflow: the tokens count
// when they leave it) or to a tip
// account, and advance a durable nonce in the first instruction (the nonce
// rule decides). Everything else is refused. The chain ignores trailing data
// bytes, and so does this parser.
func (c *check) system(i int, ix instruction) error {
	if !c.touches(ix) {
		return nil
	}
	prog := solana.SystemProgramID
	if len(ix.data) < 4 {
		return refuseIx(RuleSystemInstruction, i, prog, "garbled System instruction (%d data bytes)", len(ix.data))
	}
	switch tag := binary.LittleEndian.Uint32(ix.data); tag {
	case systemCreateAccount:
		return c.systemCreate(i, ix, 4)
	case systemCreateAccountWithSeed:
		return c.systemCreateWithSeed(i, ix)
	case systemTransfer:
		return c.systemTransfer(i, ix)
	case systemAdvanceNonce:
		if i == 0 {
			return nil
		}
		return refuseIx(RuleDurableNonce, i, prog, "AdvanceNonceAccount outside the first instruction")
	default:
		name, ok := systemNames[tag]
		if !ok {
			name = "unknown instruction"
		}
		return refuseIx(RuleSystemInstruction, i, prog, "System %s (tag %d) involving our wallet is not allowed", name, tag)
	}
}

// systemCreate counts the lamports of a CreateAccount whose funder is us; the
// lamports field sits at byte off of the data.
func (c *check) systemCreate(i int, ix instruction, off int) error {
	prog := solana.SystemProgramID
	if len(ix.data) < off+8 || len(ix.accounts) < 2 {
		return refuseIx(RuleSystemInstruction, i, prog, "garbled System create-account instruction")
	}
	if ix.accounts[0] != c.wallet {
		return refuseIx(RuleSystemInstruction, i, prog, "account creation uses our wallet but not as the funder")
	}
	lamports := binary.LittleEndian.Uint64(ix.data[off:])
	if acct, ok := c.m.staticKey(ix.accounts[1]); ok {
		c.tally.fund(acct, lamports)
		return nil
	}
	c.tally.created = satAdd(c.tally.created, lamports)
	return nil
}

// systemCreateWithSeed skips the base key and the seed string (u64 length,
// then bytes) to reach the lamports.
func (c *check) systemCreateWithSeed(i int, ix instruction) error {
	const seedLenAt = 4 + 32
	if len(ix.data) < seedLenAt+8 {
		return refuseIx(RuleSystemInstruction, i, solana.SystemProgramID, "garbled System CreateAccountWithSeed")
	}
	seedLen := binary.LittleEndian.Uint64(ix.data[seedLenAt:])
	if seedLen > uint64(len(ix.data)) {
		return refuseIx(RuleSystemInstruction, i, solana.SystemProgramID, "garbled System CreateAccountWithSeed")
	}
	return c.systemCreate(i, ix, seedLenAt+8+int(seedLen))
}

// systemTransfer classifies a SOL transfer. From someone else to us is an
// inflow; from us it must go to ourselves or where the kind permits.
func (c *check) systemTransfer(i int, ix instruction) error {
	prog := solana.SystemProgramID
	if len(ix.data) < 12 || len(ix.accounts) < 2 {
		return refuseIx(RuleSystemInstruction, i, prog, "garbled System Transfer")
	}
	if ix.accounts[0] != c.wallet {
		return nil
	}
	amount := binary.LittleEndian.Uint64(ix.data[4:])
	to, ok := c.m.staticKey(ix.accounts[1])
	switch {
	case !ok:
		return refuseIx(RuleLookupAccount, i, prog, "transfer of %d lamports from our wallet to an account loaded from a lookup table", amount)
	case to == c.g.wallet:
		return nil
	case c.perm.wrapSOL && to == c.g.wsolATA:
		// Wrapped SOL is one asset with SOL: lamports moved into our own
		// wrapped-SOL account stay ours, and the token instruction that
		// moves them on counts against the wrapped-SOL bound.
		return nil
	case c.perm.tip && c.bounds.tipAccounts[to]:
		c.tally.tips = satAdd(c.tally.tips, amount)
		return nil
	}
	return refuseIx(RuleSOLTransfer, i, prog, "transfer of %d lamports from our wallet to %s, which is not ours and not an allowed tip account", amount, to)
}
