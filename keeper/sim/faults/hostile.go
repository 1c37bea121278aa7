package faults

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/lazy"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// Amounts hostile transactions try to take.
const (
	hostileLamports = 500_000_000
	hostileTokens   = 1_000_000
)

// UnknownProgramID is the program of HostileUnknownProgram: deployed nowhere, allowlisted by nobody.
var UnknownProgramID = &lazy.Value[solana.PublicKey]{Make: func() solana.PublicKey { return ids.DerivedKey("program", "unknown") }}

// Hostilize changes the instructions and fee payer of an honest transaction the way mode says. mint is
// the token the operation deals with (the target of token thefts).
func Hostilize(mode Hostile, wallet, feePayer, mint solana.PublicKey, ixs []txbuild.Instruction) ([]txbuild.Instruction, solana.PublicKey) {
	stranger := ids.Stranger()
	switch mode {
	case HostileSystemTransfer:
		data := binary.LittleEndian.AppendUint32(nil, 2)
		data = binary.LittleEndian.AppendUint64(data, hostileLamports)
		ixs = append(ixs, txbuild.Instruction{Program: solana.SystemProgramID, Data: data,
			Accounts: []solana.AccountMeta{txbuild.Meta(wallet, true, true), txbuild.Meta(stranger, false, true)}})
	case HostileTokenTransfer:
		data := binary.LittleEndian.AppendUint64([]byte{3}, hostileTokens)
		ixs = append(ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: data, Accounts: []solana.AccountMeta{
			txbuild.Meta(txbuild.Ata(wallet, mint), false, true), txbuild.Meta(txbuild.Ata(stranger, mint), false, true), txbuild.Meta(wallet, true, false)}})
	case HostileSetAuthority:
		data := append([]byte{6, 2, 1}, stranger[:]...)
		ixs = append(ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: data, Accounts: []solana.AccountMeta{
			txbuild.Meta(txbuild.Ata(wallet, mint), false, true), txbuild.Meta(wallet, true, false)}})
	case HostileUnknownProgram:
		ixs = append(ixs, txbuild.Instruction{Program: UnknownProgramID.Get(), Data: []byte{0xde, 0xad},
			Accounts: []solana.AccountMeta{txbuild.Meta(wallet, true, true)}})
	case HostileFeePayer:
		feePayer = stranger
	case HostileOneOver:
		data := binary.LittleEndian.AppendUint64([]byte{3}, 1)
		ixs = append(ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: data, Accounts: []solana.AccountMeta{
			txbuild.Meta(txbuild.Ata(wallet, mint), false, true), txbuild.Meta(txbuild.Ata(stranger, mint), false, true), txbuild.Meta(wallet, true, false)}})
	case HostileCloseToStranger:
		ixs = append(ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: []byte{9}, Accounts: []solana.AccountMeta{
			txbuild.Meta(txbuild.Ata(wallet, mint), false, true), txbuild.Meta(stranger, false, true), txbuild.Meta(wallet, true, false)}})
	case HostileApproveDelegate:
		data := binary.LittleEndian.AppendUint64([]byte{4}, ^uint64(0))
		ixs = append(ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: data, Accounts: []solana.AccountMeta{
			txbuild.Meta(txbuild.Ata(wallet, mint), false, true), txbuild.Meta(stranger, false, false), txbuild.Meta(wallet, true, false)}})
	case HostileExtraSigner:
		ixs = append(ixs, txbuild.Instruction{Program: solana.MemoProgramID, Data: []byte("keeper-sim"),
			Accounts: []solana.AccountMeta{txbuild.Meta(stranger, true, false)}})
	}
	return ixs, feePayer
}

// DrainIxs are the instructions of the transaction HostileSecondDrains appends.
func DrainIxs(wallet solana.PublicKey) []txbuild.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, 2)
	data = binary.LittleEndian.AppendUint64(data, hostileLamports)
	return []txbuild.Instruction{{Program: solana.SystemProgramID, Data: data,
		Accounts: []solana.AccountMeta{txbuild.Meta(wallet, true, true), txbuild.Meta(ids.Stranger(), false, true)}}}
}
