package signer

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// tokenSpendTags are the token instructions that move or expose tokens under
// their authority: Transfer, Approve, Burn, TransferChecked, ApproveChecked,
// BurnChecked.
var tokenSpendTags = map[byte]string{
	tokenTransfer: "Transfer", tokenApprove: "Approve", tokenBurn: "Burn",
	tokenTransferChecked: "TransferChecked", tokenApproveChecked: "ApproveChecked", tokenBurnChecked: "BurnChecked",
}

// SpendAt reports whether instruction i of tx spends from our wallet under
// our authority: a System transfer from our wallet to another account, or a
// Token or Token-2022 transfer, approval or burn that names our wallet. It
// describes the instruction when it does.
//
// A simulation that fails at such an instruction shows the answer trying to
// move more of ours than there is, or to an account that cannot take it: the
// guard passed it statically within the bounds, and the chain stopped it.
// keeper refuses such an answer ([RuleSimulatedSpendFailed]) instead of
// building it again.
func (s *Signer) SpendAt(tx *Tx, i int) (string, bool) {
	if tx == nil || tx.msg == nil || i < 0 || i >= len(tx.msg.ixs) {
		return "", false
	}
	m := tx.msg
	slot := m.signerIndex(s.pub)
	ix := m.ixs[i]
	if slot < 0 || !slices.Contains(ix.accounts, uint8(slot)) {
		return "", false
	}
	switch prog := m.keys[ix.program]; prog {
	case solana.SystemProgramID:
		if len(ix.data) < 12 || len(ix.accounts) < 2 || binary.LittleEndian.Uint32(ix.data) != systemTransfer || ix.accounts[0] != uint8(slot) {
			return "", false
		}
		if to, ok := m.staticKey(ix.accounts[1]); ok && to == s.pub {
			return "", false
		}
		return fmt.Sprintf("instruction %d: System transfer of %d lamports from our wallet", i, binary.LittleEndian.Uint64(ix.data[4:])), true
	case solana.TokenProgramID, solana.Token2022ProgramID:
		if len(ix.data) == 0 {
			return "", false
		}
		name, ok := tokenSpendTags[ix.data[0]]
		if !ok {
			return "", false
		}
		return fmt.Sprintf("instruction %d: token %s with our wallet as authority", i, name), true
	}
	return "", false
}
