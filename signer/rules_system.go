package signer

import "encoding/binary"

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
func (x ixCheck) system() error {
	if !x.touches() {
		return nil
	}
	if len(x.ix.data) < 4 {
		return x.refuse(RuleSystemInstruction, "garbled System instruction (%d data bytes)", len(x.ix.data))
	}
	switch tag := binary.LittleEndian.Uint32(x.ix.data); tag {
	case systemCreateAccount:
		return x.systemCreate(4)
	case systemCreateAccountWithSeed:
		return x.systemCreateWithSeed()
	case systemTransfer:
		return x.systemTransfer()
	case systemAdvanceNonce:
		if x.i == 0 {
			return nil
		}
		return x.refuse(RuleDurableNonce, "AdvanceNonceAccount outside the first instruction")
	default:
		name, ok := systemNames[tag]
		if !ok {
			name = "unknown instruction"
		}
		return x.refuse(RuleSystemInstruction, "System %s (tag %d) involving our wallet is not allowed", name, tag)
	}
}

// systemCreate counts the lamports of a CreateAccount whose funder is us; the
// lamports field sits at byte off of the data.
func (x ixCheck) systemCreate(off int) error {
	if len(x.ix.data) < off+8 || len(x.ix.accounts) < 2 {
		return x.refuse(RuleSystemInstruction, "garbled System create-account instruction")
	}
	if x.ix.accounts[0] != x.c.wallet {
		return x.refuse(RuleSystemInstruction, "account creation uses our wallet but not as the funder")
	}
	lamports := binary.LittleEndian.Uint64(x.ix.data[off:])
	if acct, ok := x.c.m.staticKey(x.ix.accounts[1]); ok {
		x.c.tally.fund(acct, lamports)
		return nil
	}
	x.c.tally.created = satAdd(x.c.tally.created, lamports)
	return nil
}

// systemCreateWithSeed skips the base key and the seed string (u64 length,
// then bytes) to reach the lamports.
func (x ixCheck) systemCreateWithSeed() error {
	const seedLenAt = 4 + 32
	if len(x.ix.data) < seedLenAt+8 {
		return x.refuse(RuleSystemInstruction, "garbled System CreateAccountWithSeed")
	}
	seedLen := binary.LittleEndian.Uint64(x.ix.data[seedLenAt:])
	if seedLen > uint64(len(x.ix.data)) {
		return x.refuse(RuleSystemInstruction, "garbled System CreateAccountWithSeed")
	}
	return x.systemCreate(seedLenAt + 8 + int(seedLen))
}

// systemTransfer classifies a SOL transfer. From someone else to us is an
// inflow; from us it must go to ourselves or where the kind permits.
func (x ixCheck) systemTransfer() error {
	if len(x.ix.data) < 12 || len(x.ix.accounts) < 2 {
		return x.refuse(RuleSystemInstruction, "garbled System Transfer")
	}
	if x.ix.accounts[0] != x.c.wallet {
		return nil
	}
	amount := binary.LittleEndian.Uint64(x.ix.data[4:])
	to, ok := x.c.m.staticKey(x.ix.accounts[1])
	switch {
	case !ok:
		return x.refuse(RuleLookupAccount, "transfer of %d lamports from our wallet to an account loaded from a lookup table", amount)
	case to == x.c.g.wallet:
		return nil
	case x.c.perm.wrapSOL && to == x.c.g.wsolATA:
		// Wrapped SOL is one asset with SOL: lamports moved into our own
		// wrapped-SOL account stay ours, and the token instruction that
		// moves them on counts against the wrapped-SOL bound.
		return nil
	case x.c.perm.tip && x.c.bounds.tipAccounts[to]:
		x.c.tally.tips = satAdd(x.c.tally.tips, amount)
		return nil
	}
	return x.refuse(RuleSOLTransfer, "transfer of %d lamports from our wallet to %s, which is not ours and not an allowed tip account", amount, to)
}
