package chain

import (
	"encoding/binary"
	"errors"
	"fmt"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

// maxTxBytes is the largest wire transaction a node accepts
// (PACKET_DATA_SIZE).
const maxTxBytes = 1232

// systemAdvanceNonce is the System program's AdvanceNonceAccount
// instruction index.
const systemAdvanceNonce = 4

// Signed is a fully signed wire transaction ready to send.
type Signed struct {
	Raw       []byte           // wire bytes: shortvec(n) || signatures || message
	Signature solana.Signature // the first signature: the transaction id
	Blockhash solana.Hash      // the message's recent blockhash
}

// Ref returns the transaction's signature and blockhash, what Settle needs.
func (s Signed) Ref() TxRef { return TxRef{Signature: s.Signature, Blockhash: s.Blockhash} }

// TxRef identifies a sent transaction and its lifetime: enough to tell later
// whether it landed or can no longer land.
type TxRef struct {
	Signature solana.Signature
	Blockhash solana.Hash
}

// decodeTx decodes a wire transaction, refusing trailing bytes.
func decodeTx(raw []byte) (*solana.Transaction, error) {
	dec := bin.NewBinDecoder(raw)
	tx, err := solana.TransactionFromDecoder(dec)
	if err != nil {
		return nil, fmt.Errorf("decode transaction: %w", err)
	}
	if dec.Remaining() != 0 {
		return nil, fmt.Errorf("decode transaction: %d trailing bytes", dec.Remaining())
	}
	return tx, nil
}

// check verifies that s is consistent (its Signature and Blockhash are those
// of Raw, every signature slot is filled) and sendable (size, no durable
// nonce). It returns the decoded transaction.
func (s Signed) check() (*solana.Transaction, error) {
	if len(s.Raw) > maxTxBytes {
		return nil, fmt.Errorf("transaction is %d bytes, more than the %d a node accepts", len(s.Raw), maxTxBytes)
	}
	tx, err := decodeTx(s.Raw)
	if err != nil {
		return nil, err
	}
	m := tx.Message
	if len(tx.Signatures) == 0 || len(tx.Signatures) != int(m.Header.NumRequiredSignatures) {
		return nil, fmt.Errorf("transaction has %d signatures, its message requires %d", len(tx.Signatures), m.Header.NumRequiredSignatures)
	}
	for i, sig := range tx.Signatures {
		if sig.IsZero() {
			return nil, fmt.Errorf("signature slot %d is empty", i)
		}
	}
	if tx.Signatures[0] != s.Signature {
		return nil, fmt.Errorf("signature %s is not the transaction's first signature %s", s.Signature, tx.Signatures[0])
	}
	if m.RecentBlockhash != s.Blockhash {
		return nil, fmt.Errorf("blockhash %s is not the message's blockhash %s", s.Blockhash, m.RecentBlockhash)
	}
	if usesDurableNonce(m) {
		return nil, ErrDurableNonce
	}
	return tx, nil
}

// usesDurableNonce reports whether the message's first instruction is the
// System program's AdvanceNonceAccount.
func usesDurableNonce(m solana.Message) bool {
	if len(m.Instructions) == 0 {
		return false
	}
	ix := m.Instructions[0]
	if int(ix.ProgramIDIndex) >= len(m.AccountKeys) || !m.AccountKeys[ix.ProgramIDIndex].Equals(solana.SystemProgramID) {
		return false
	}
	return len(ix.Data) >= 4 && binary.LittleEndian.Uint32(ix.Data) == systemAdvanceNonce
}

// checkAll checks every transaction, naming the index of a bad one.
func checkAll(txs []Signed) error {
	if len(txs) == 0 {
		return errors.New("no transaction to send")
	}
	seen := make(map[solana.Signature]int, len(txs))
	for i, s := range txs {
		if _, err := s.check(); err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
		if j, dup := seen[s.Signature]; dup {
			return fmt.Errorf("transaction %d: same signature as transaction %d", i, j)
		}
		seen[s.Signature] = i
	}
	return nil
}

// signatures returns the transactions' first signatures.
func signatures(txs []Signed) []solana.Signature {
	out := make([]solana.Signature, len(txs))
	for i, s := range txs {
		out[i] = s.Signature
	}
	return out
}

// ErrSignedByWallet refuses a simulation of a transaction that already
// carries the wallet's signature. keeper simulates what it is about to sign,
// before it signs (DESIGN.md's action path): bytes the wallet has signed must
// not leave the process before their signatures are journaled, and a
// simulation request is bytes leaving the process.
var ErrSignedByWallet = errors.New("the transaction carries the wallet's signature; simulate it before signing")

// decodeUnsigned decodes a transaction to simulate and computes its fee
// (MessageFee). It returns ErrSignedByWallet when wallet is one of the
// transaction's signers and its signature slot is not all zeros; a
// transaction the wallet does not sign, or whose wallet slot is empty,
// passes.
func decodeUnsigned(raw []byte, wallet solana.PublicKey) (*solana.Transaction, Fee, error) {
	tx, err := decodeTx(raw)
	if err != nil {
		return nil, Fee{}, err
	}
	n := min(int(tx.Message.Header.NumRequiredSignatures), len(tx.Message.AccountKeys), len(tx.Signatures))
	for i := range n {
		if tx.Message.AccountKeys[i].Equals(wallet) && !tx.Signatures[i].IsZero() {
			return nil, Fee{}, fmt.Errorf("signature slot %d: %w", i, ErrSignedByWallet)
		}
	}
	fee, err := MessageFee(tx.Message)
	return tx, fee, err
}
