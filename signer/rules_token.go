package signer

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

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
func (c *check) token(i int, ix instruction, prog solana.PublicKey) error {
	if !c.touches(ix) {
		return nil
	}
	if len(ix.data) == 0 {
		return refuseIx(RuleTokenInstruction, i, prog, "garbled token instruction (no data)")
	}
	tag := ix.data[0]
	switch {
	case tokenHarmless[tag]:
		return nil
	case tag == tokenSetAuthority:
		return refuseIx(RuleSetAuthority, i, prog, "SetAuthority with our wallet as the current authority")
	case tag == tokenCloseAccount:
		return c.tokenClose(i, ix, prog)
	case tag == tokenBurn || tag == tokenBurnChecked:
		return refuseIx(RuleTokenOutflow, i, prog, "burn with our wallet as authority is not allowed for any kind")
	}
	if spend, ok := tokenSpends[tag]; ok {
		return c.tokenSpend(i, ix, prog, spend)
	}
	return refuseIx(RuleTokenInstruction, i, prog, "token instruction %d involving our wallet is not allowed", tag)
}

// tokenClose allows closing an account only when the rent goes to our wallet.
func (c *check) tokenClose(i int, ix instruction, prog solana.PublicKey) error {
	if len(ix.accounts) < 3 {
		return refuseIx(RuleTokenInstruction, i, prog, "garbled CloseAccount (%d accounts)", len(ix.accounts))
	}
	dest, ok := c.m.staticKey(ix.accounts[1])
	switch {
	case !ok:
		return refuseIx(RuleLookupAccount, i, prog, "CloseAccount by our wallet sends the rent to an account loaded from a lookup table")
	case dest != c.g.wallet:
		return refuseIx(RuleCloseAccount, i, prog, "CloseAccount by our wallet sends the rent to %s, not to us", dest)
	}
	if acct, ok := c.m.staticKey(ix.accounts[0]); ok {
		c.tally.closeToUs(acct)
	}
	return nil
}

// tokenSpend counts a transfer or approval against the mint's bound, when
// the kind allows spending at all. Approvals count in full: the delegate may
// take that much later.
func (c *check) tokenSpend(i int, ix instruction, prog solana.PublicKey, s tokenSpend) error {
	if !c.perm.tokenOut {
		return refuseIx(RuleTokenOutflow, i, prog, "token %s with our wallet as authority is not allowed for kind %s", s.name, c.kind)
	}
	if len(ix.data) < 9 {
		return refuseIx(RuleTokenInstruction, i, prog, "garbled token %s (%d data bytes)", s.name, len(ix.data))
	}
	amount := binary.LittleEndian.Uint64(ix.data[1:])
	if s.mintAt < 0 {
		c.tally.unknownMint = satAdd(c.tally.unknownMint, amount)
		return nil
	}
	if len(ix.accounts) <= s.mintAt {
		return refuseIx(RuleTokenInstruction, i, prog, "garbled token %s (%d accounts)", s.name, len(ix.accounts))
	}
	if mint, ok := c.m.staticKey(ix.accounts[s.mintAt]); ok {
		c.tally.addToken(mint, amount)
	} else {
		c.tally.unknownMint = satAdd(c.tally.unknownMint, amount)
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
func (c *check) associatedToken(i int, ix instruction) error {
	if !c.touches(ix) || len(ix.data) == 0 || ix.data[0] == ataCreate || ix.data[0] == ataCreateIdempotent {
		return nil
	}
	return refuseIx(RuleTokenInstruction, i, solana.SPLAssociatedTokenAccountProgramID,
		"associated token instruction %d involving our wallet is not allowed", ix.data[0])
}
