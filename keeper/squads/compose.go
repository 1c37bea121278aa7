package squads

import (
	"bytes"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer"
)

// Propose is a proposal keeper makes: the vault transaction of msg at
// Index (the multisig's transaction_index + 1) and its proposal, created
// and paid by Creator.
type Propose struct {
	Multisig   solana.PublicKey
	Index      uint64
	VaultIndex uint8
	Creator    solana.PublicKey
	Message    *Message
	// Memo is logged by the program with the creation; empty for none.
	Memo string
	// Budget is keeper's compute budget, opening the transaction; nil:
	// none.
	Budget *signer.Budget
}

// ProposeMessage compiles the transaction that creates p's vault
// transaction and its proposal, fee payer p.Creator, on blockhash.
func ProposeMessage(p Propose, blockhash solana.Hash) ([]byte, error) {
	ixs := append(budgetInstructions(p.Budget),
		VaultTransactionCreate(p.Multisig, p.Index, p.Creator, p.Creator,
			CreateArgs{VaultIndex: p.VaultIndex, Message: p.Message.Encode(), Memo: p.Memo}),
		ProposalCreate(p.Multisig, p.Index, p.Creator, p.Creator),
	)
	return compile(ixs, p.Creator, blockhash)
}

// ExecuteMessage compiles the transaction by which member executes the
// vault transaction at index, with remaining (see ExecuteAccounts), budget
// (when not nil) opening it.
func ExecuteMessage(multisig solana.PublicKey, index uint64, member solana.PublicKey, remaining []*solana.AccountMeta,
	budget *signer.Budget, blockhash solana.Hash) ([]byte, error) {
	ixs := append(budgetInstructions(budget), VaultTransactionExecute(multisig, index, member, remaining))
	return compile(ixs, member, blockhash)
}

// budgetInstructions are b's SetComputeUnitLimit and SetComputeUnitPrice,
// in that order: the compute budget keeper puts first in a transaction it
// composes and alone signs; none for nil.
func budgetInstructions(b *signer.Budget) []solana.Instruction {
	if b == nil {
		return nil
	}
	return []solana.Instruction{
		solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, signer.SetUnitLimitData(b.Limit)),
		solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, signer.SetUnitPriceData(b.Price)),
	}
}

func compile(ixs []solana.Instruction, payer solana.PublicKey, blockhash solana.Hash) ([]byte, error) {
	tx, err := solana.NewTransaction(ixs, blockhash, solana.TransactionPayer(payer))
	if err != nil {
		return nil, fmt.Errorf("squads: compiling a transaction: %w", err)
	}
	b, err := tx.Message.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("squads: encoding a message: %w", err)
	}
	return b, nil
}

// CheckPropose checks a compiled transaction against p: it holds exactly
// p's compute budget (none without one), then vault_transaction_create and
// proposal_create of the Squads program for p's multisig and index,
// p.Creator the creator and the rent payer of both, and the vault
// transaction's message is p.Message byte for byte.
func CheckPropose(raw []byte, p Propose) error {
	var m solana.Message
	if err := m.UnmarshalWithDecoder(newDecoder(raw)); err != nil {
		return fmt.Errorf("squads: %w: %v", ErrMalformed, err)
	}
	budget := budgetInstructions(p.Budget)
	if want := len(budget) + 2; len(m.Instructions) != want {
		return fmt.Errorf("squads: a proposal transaction holds %d instructions, not %d", len(m.Instructions), want)
	}
	for i, want := range budget {
		ix := m.Instructions[i]
		data, _ := want.Data()
		if prog, err := m.Program(ix.ProgramIDIndex); err != nil || prog != solana.ComputeBudget || len(ix.Accounts) != 0 || !bytes.Equal(ix.Data, data) {
			return fmt.Errorf("squads: instruction %d is not keeper's compute budget (%s)", i, p.Budget)
		}
	}
	m.Instructions = m.Instructions[len(budget):]
	txKey, _ := TransactionPDA(p.Multisig, p.Index)
	propKey, _ := ProposalPDA(p.Multisig, p.Index)
	for i, want := range []struct {
		disc [8]byte
		acct solana.PublicKey
	}{{IxVaultTransactionCreate, txKey}, {IxProposalCreate, propKey}} {
		ix := m.Instructions[i]
		keys, err := ix.ResolveInstructionAccounts(&m)
		if err != nil {
			return fmt.Errorf("squads: instruction %d: %w", i, err)
		}
		prog, err := m.Program(ix.ProgramIDIndex)
		switch {
		case err != nil || prog != ProgramID:
			return fmt.Errorf("squads: instruction %d is not the Squads program's", i)
		case len(ix.Data) < 8 || [8]byte(ix.Data[:8]) != want.disc || len(keys) < 4:
			return fmt.Errorf("squads: instruction %d is not the expected Squads instruction", i)
		case keys[0].PublicKey != p.Multisig || keys[1].PublicKey != want.acct:
			return fmt.Errorf("squads: instruction %d names another multisig or index", i)
		case keys[2].PublicKey != p.Creator || keys[3].PublicKey != p.Creator:
			return fmt.Errorf("squads: instruction %d has another creator or rent payer than %s", i, p.Creator)
		}
	}
	args, err := DecodeCreateArgs(m.Instructions[0].Data[8:])
	if err != nil {
		return err
	}
	if !bytes.Equal(args.Message, p.Message.Encode()) || args.VaultIndex != p.VaultIndex || args.EphemeralSigners != 0 {
		return fmt.Errorf("squads: the vault transaction is not the guarded message")
	}
	return nil
}

// SimulationMessage is msg as a transaction payer pays for, blockhash its
// recent blockhash: payer comes first as a writable signer, then msg's
// keys unchanged (the vault among the signers). Simulated with signature
// verification off, it runs msg's instructions as the execution will, the
// vault signing; only the fee payer differs (the execution's is keeper,
// outside the vault transaction).
func SimulationMessage(msg *Message, payer solana.PublicKey, blockhash solana.Hash) ([]byte, error) {
	inner := msg.Solana(blockhash)
	out := *inner
	out.Header.NumRequiredSignatures++
	out.AccountKeys = append(solana.PublicKeySlice{payer}, inner.AccountKeys...)
	out.Instructions = make([]solana.CompiledInstruction, len(inner.Instructions))
	for i, ix := range inner.Instructions {
		c := solana.CompiledInstruction{ProgramIDIndex: ix.ProgramIDIndex + 1, Data: ix.Data}
		for _, a := range ix.Accounts {
			c.Accounts = append(c.Accounts, a+1)
		}
		out.Instructions[i] = c
	}
	for _, k := range inner.AccountKeys {
		if k == payer {
			return nil, fmt.Errorf("squads: the simulation's fee payer %s is already in the message", payer)
		}
	}
	b, err := out.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("squads: encoding the simulation message: %w", err)
	}
	return b, nil
}
