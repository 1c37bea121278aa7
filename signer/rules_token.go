package signer

import "encoding/binary"

// Token and Token-2022 instruction tags (the first data byte; both programs
// share the numbering up to 24).
const (
	tokenTransfer        = 3
	tokenApprove         = 4
	tokenSetAuthority    = 6
	tokenBurn            = 8
	tokenCloseAccount    = 9
	tokenTransferChecked = 12
	tokenApproveChecked  = 13
	tokenBurnChecked     = 15
)

// tokenHarmless are the instructions that may name our wallet without giving
// anything away: InitializeAccount, Revoke, InitializeAccount2, SyncNative,
// InitializeAccount3, GetAccountDataSize, InitializeImmutableOwner,
// AmountToUiAmount, UiAmountToAmount.
var tokenHarmless = map[byte]bool{1: true, 5: true, 16: true, 17: true, 18: true, 21: true, 22: true, 23: true, 24: true}

// tokenSpend describes an instruction that moves or exposes our tokens: the
// account position of the mint (-1 when the instruction does not name it) and
// its name for messages.
type tokenSpend struct {
	mintAt int
	name   string
}

var tokenSpends = map[byte]tokenSpend{
	tokenTransfer:        {-1, "Transfer"},
	tokenApprove:         {-1, "Approve"},
	tokenTransferChecked: {1, "TransferChecked"},
	tokenApproveChecked:  {1, "ApproveChecked"},
}

// token checks a Token or Token-2022 instruction that involves our wallet.
// Our wallet can only appear as an authority (owner, delegate or multisig
// signer), so any instruction naming it acts with our authority.
func (x ixCheck) token() error {
	if !x.touches() {
		return nil
	}
	if len(x.ix.data) == 0 {
		return x.refuse(RuleTokenInstruction, "garbled token instruction (no data)")
	}
	tag := x.ix.data[0]
	switch {
	case tokenHarmless[tag]:
		return nil
	case tag == tokenSetAuthority:
		return x.refuse(RuleSetAuthority, "SetAuthority with our wallet as the current authority")
	case tag == tokenCloseAccount:
		return x.tokenClose()
	case tag == tokenBurn || tag == tokenBurnChecked:
		return x.refuse(RuleTokenOutflow, "burn with our wallet as authority is not allowed for any kind")
	}
	if spend, ok := tokenSpends[tag]; ok {
		return x.tokenSpend(spend)
	}
	return x.refuse(RuleTokenInstruction, "token instruction %d involving our wallet is not allowed", tag)
}

// tokenClose allows closing an account only when the rent goes to our wallet.
func (x ixCheck) tokenClose() error {
	if len(x.ix.accounts) < 3 {
		return x.refuse(RuleTokenInstruction, "garbled CloseAccount (%d accounts)", len(x.ix.accounts))
	}
	dest, ok := x.c.m.staticKey(x.ix.accounts[1])
	switch {
	case !ok:
		return x.refuse(RuleLookupAccount, "CloseAccount by our wallet sends the rent to an account loaded from a lookup table")
	case dest != x.c.g.wallet:
		return x.refuse(RuleCloseAccount, "CloseAccount by our wallet sends the rent to %s, not to us", dest)
	}
	if acct, ok := x.c.m.staticKey(x.ix.accounts[0]); ok {
		x.c.tally.closeToUs(acct)
	}
	return nil
}

// tokenSpend counts a transfer or approval against the mint's bound, when
// the kind allows spending at all. Approvals count in full: the delegate may
// take that much later.
func (x ixCheck) tokenSpend(s tokenSpend) error {
	if !x.c.perm.tokenOut {
		return x.refuse(RuleTokenOutflow, "token %s with our wallet as authority is not allowed for kind %s", s.name, x.c.kind)
	}
	if len(x.ix.data) < 9 {
		return x.refuse(RuleTokenInstruction, "garbled token %s (%d data bytes)", s.name, len(x.ix.data))
	}
	amount := binary.LittleEndian.Uint64(x.ix.data[1:])
	if s.mintAt < 0 {
		x.c.tally.unknownMint = satAdd(x.c.tally.unknownMint, amount)
		return nil
	}
	if len(x.ix.accounts) <= s.mintAt {
		return x.refuse(RuleTokenInstruction, "garbled token %s (%d accounts)", s.name, len(x.ix.accounts))
	}
	if mint, ok := x.c.m.staticKey(x.ix.accounts[s.mintAt]); ok {
		x.c.tally.addToken(mint, amount)
	} else {
		x.c.tally.unknownMint = satAdd(x.c.tally.unknownMint, amount)
	}
	return nil
}

// Associated Token Account program instruction tags; empty data means Create.
const (
	ataCreate           = 0
	ataCreateIdempotent = 1
)

// associatedToken allows creating associated token accounts (the rent comes
// from the funder through a CPI, which only the simulation check sees) and
// refuses any other instruction of that program involving our wallet.
func (x ixCheck) associatedToken() error {
	if !x.touches() || len(x.ix.data) == 0 || x.ix.data[0] == ataCreate || x.ix.data[0] == ataCreateIdempotent {
		return nil
	}
	return x.refuse(RuleTokenInstruction, "associated token instruction %d involving our wallet is not allowed", x.ix.data[0])
}
