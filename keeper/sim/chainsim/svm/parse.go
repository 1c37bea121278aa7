package svm

import (
	"crypto/sha256"
	"errors"
	"fmt"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
)

// MaxTransactionSize is the largest wire transaction the chain accepts, in
// bytes (the size of one network packet's payload).
const MaxTransactionSize = 1232

// Txn is a decoded and sanitized wire transaction.
type Txn struct {
	Raw      []byte
	msgBytes []byte             // the exact signed message bytes
	Sigs     []solana.Signature // one per required signer, in key order
	Msg      solana.Message     // AccountKeys holds the static keys only

	// Filled by resolve:
	Keys     []solana.PublicKey // static keys, then loaded writable, then loaded read-only
	Writable []bool             // per key, after demotion of programs
	LoadedW  []solana.PublicKey
	LoadedR  []solana.PublicKey
}

// ID returns the transaction id, its first signature.
func (t *Txn) ID() solana.Signature { return t.Sigs[0] }

// MessageHash identifies t by its message alone, whatever its signatures
// hold, as the validator's status cache and Jito-Solana's simulateBundle
// tell transactions apart (by message hash): an unsigned copy of a
// transaction is the same transaction.
func MessageHash(t *Txn) [32]byte { return sha256.Sum256(t.msgBytes) }

// AccountKeyCount returns the number of account keys the message names: its static keys and every
// address its lookups load, as the validator counts them before loading.
func (t *Txn) AccountKeyCount() int {
	n := len(t.Msg.AccountKeys)
	for _, l := range t.Msg.AddressTableLookups {
		n += len(l.WritableIndexes) + len(l.ReadonlyIndexes)
	}
	return n
}

// numStatic returns the number of static account keys.
func (t *Txn) numStatic() int { return len(t.Msg.AccountKeys) }

// IsSigner reports whether key index i is a required signer.
func (t *Txn) IsSigner(i int) bool { return i < int(t.Msg.Header.NumRequiredSignatures) }

// FeePayer returns the fee payer, the first static key.
func (t *Txn) FeePayer() solana.PublicKey { return t.Msg.AccountKeys[0] }

// Version returns -1 for a legacy message and 0 for v0.
func (t *Txn) Version() int {
	if t.Msg.IsVersioned() {
		return 0
	}
	return -1
}

// invalidf returns an ErrInvalidTransaction error with a reason.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidTransaction, fmt.Sprintf(format, args...))
}

// ParseTx decodes and sanitizes a wire transaction. It does not verify
// signatures (see verifySignatures) or look at chain state.
func ParseTx(raw []byte) (*Txn, error) {
	if len(raw) > MaxTransactionSize {
		return nil, invalidf("%d bytes, more than the maximum of %d", len(raw), MaxTransactionSize)
	}
	n, off, err := readShortVec(raw)
	if err != nil {
		return nil, invalidf("signature count: %v", err)
	}
	if n == 0 || len(raw)-off < n*64 {
		return nil, invalidf("%d signatures do not fit in %d bytes", n, len(raw))
	}
	t := &Txn{Raw: raw, msgBytes: raw[off+n*64:], Sigs: make([]solana.Signature, n)}
	for i := range t.Sigs {
		copy(t.Sigs[i][:], raw[off+i*64:])
	}
	if err := t.decodeMessage(); err != nil {
		return nil, err
	}
	if err := t.sanitize(); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeMessage decodes msgBytes, refusing versions other than legacy and
// v0 and any trailing bytes.
func (t *Txn) decodeMessage() error {
	if len(t.msgBytes) == 0 {
		return invalidf("empty message")
	}
	switch b := t.msgBytes[0]; {
	case b&0x80 != 0 && b != 0x80:
		return invalidf("unsupported message version %d", b&0x7f)
	case b == 0x7f:
		return invalidf("127 required signatures cannot fit in a transaction")
	}
	dec := bin.NewBinDecoder(t.msgBytes)
	if err := t.Msg.UnmarshalWithDecoder(dec); err != nil {
		return invalidf("decode message: %v", err)
	}
	if dec.Remaining() != 0 {
		return invalidf("%d trailing bytes after the message", dec.Remaining())
	}
	return nil
}

// sanitize applies the runtime's structural checks to the message.
func (t *Txn) sanitize() error {
	h := t.Msg.Header
	nStatic := t.numStatic()
	switch {
	case int(h.NumRequiredSignatures) != len(t.Sigs):
		return invalidf("%d signatures for %d required signers", len(t.Sigs), h.NumRequiredSignatures)
	case h.NumReadonlySignedAccounts >= h.NumRequiredSignatures:
		return invalidf("the fee payer must be a writable signer")
	case int(h.NumRequiredSignatures)+int(h.NumReadonlyUnsignedAccounts) > nStatic:
		return invalidf("header counts %d signers and %d read-only accounts but the message has %d keys",
			h.NumRequiredSignatures, h.NumReadonlyUnsignedAccounts, nStatic)
	}
	total := nStatic
	for i, l := range t.Msg.AddressTableLookups {
		if len(l.WritableIndexes)+len(l.ReadonlyIndexes) == 0 {
			return invalidf("address table lookup %d selects no account", i)
		}
		total += len(l.WritableIndexes) + len(l.ReadonlyIndexes)
	}
	if total > 256 {
		return invalidf("%d accounts, more than 256", total)
	}
	for i, ix := range t.Msg.Instructions {
		if ix.ProgramIDIndex == 0 || int(ix.ProgramIDIndex) >= nStatic {
			return invalidf("instruction %d: program id index %d out of range", i, ix.ProgramIDIndex)
		}
		for _, a := range ix.Accounts {
			if int(a) >= total {
				return invalidf("instruction %d: account index %d out of range", i, a)
			}
		}
	}
	return nil
}

// VerifySignatures checks every required signature over the message bytes.
func (t *Txn) VerifySignatures() error {
	for i, sig := range t.Sigs {
		key := t.Msg.AccountKeys[i]
		if sig.IsZero() || !key.Verify(t.msgBytes, sig) {
			return fmt.Errorf("%w: signature %d (signer %s)", ErrSignatureFailure, i, key)
		}
	}
	return nil
}

// readShortVec decodes a compact-u16 length prefix, returning the value and
// the number of bytes it used; non-canonical encodings are refused.
func readShortVec(b []byte) (int, int, error) {
	val := 0
	for i := 0; i < 3; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated length")
		}
		c := int(b[i])
		val |= (c & 0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, errors.New("non-canonical length")
			}
			if val > 0xffff {
				return 0, 0, errors.New("length overflows u16")
			}
			return val, i + 1, nil
		}
	}
	return 0, 0, errors.New("length longer than 3 bytes")
}

// Instruction returns instruction i with its accounts' flags.
func (t *Txn) Instruction(i int) Instruction {
	ci := t.Msg.Instructions[i]
	ix := Instruction{
		ProgramID: t.Keys[ci.ProgramIDIndex],
		Accounts:  make([]solana.AccountMeta, len(ci.Accounts)),
		Data:      append([]byte(nil), ci.Data...),
	}
	for j, idx := range ci.Accounts {
		ix.Accounts[j] = solana.AccountMeta{PublicKey: t.Keys[idx], IsSigner: t.IsSigner(int(idx)), IsWritable: t.Writable[idx]}
	}
	return ix
}
