package signer

import (
	"slices"

	"github.com/gagliardetto/solana-go"
)

// Encoding names how a transaction's text was encoded.
type Encoding string

// Encodings that decoding detects.
const (
	EncodingBase64 Encoding = "base64"
	EncodingBase58 Encoding = "base58"
	EncodingBytes  Encoding = "bytes" // raw bytes handed over by keeper itself
)

// Form names what the decoded bytes were.
type Form string

// Forms that decoding detects.
const (
	FormMessage Form = "message"          // a bare message; signatures came separately, if at all
	FormWire    Form = "wire transaction" // shortvec(n) || n signatures || message
)

// Tx is a decoded transaction: the original message bytes, exactly as
// received, a read-only view of them, and one signature slot per required
// signer. A non-zero slot always holds a signature verified over the message
// bytes; a zero slot is unsigned. A Tx is immutable and safe for concurrent
// use; signing never modifies it.
type Tx struct {
	raw  []byte
	msg  *message
	sigs slots
	enc  Encoding
	form Form
}

// newTx returns a Tx over raw with every signature slot empty.
func newTx(raw []byte, m *message, enc Encoding, form Form) *Tx {
	return &Tx{raw: raw, msg: m, sigs: make([]solana.Signature, m.header.numRequiredSignatures), enc: enc, form: form}
}

// MessageBytes returns a copy of the original message bytes, the bytes every
// signature covers.
func (t *Tx) MessageBytes() []byte { return slices.Clone(t.raw) }

// Encoding reports how the input text was encoded.
func (t *Tx) Encoding() Encoding { return t.enc }

// Form reports whether the input was a bare message or a wire transaction.
func (t *Tx) Form() Form { return t.form }

// Versioned reports whether the message is a v0 message.
func (t *Tx) Versioned() bool { return t.msg.versioned }

// FeePayer returns the first static key, which pays the fees.
func (t *Tx) FeePayer() solana.PublicKey { return t.msg.keys[0] }

// Signers returns the required signers in slot order.
func (t *Tx) Signers() []solana.PublicKey {
	return slices.Clone(t.msg.keys[:t.msg.header.numRequiredSignatures])
}

// Signatures returns the signature slots in signer order; a zero signature
// marks an unsigned slot.
func (t *Tx) Signatures() []solana.Signature { return slices.Clone(t.sigs) }

// Blockhash returns the message's recent blockhash, which is the nonce value
// when the transaction uses a durable nonce (see [Tx.DurableNonce]).
func (t *Tx) Blockhash() solana.Hash { return t.msg.blockhash }

// StaticKeys returns the message's static account keys in order.
func (t *Tx) StaticKeys() []solana.PublicKey { return slices.Clone(t.msg.keys) }

// ProgramIDs returns the program id of each top-level instruction, in
// instruction order. Program ids are always static keys.
func (t *Tx) ProgramIDs() []solana.PublicKey {
	out := make([]solana.PublicKey, len(t.msg.ixs))
	for i, ix := range t.msg.ixs {
		out[i] = t.msg.keys[ix.program]
	}
	return out
}

// LookupTables returns the address lookup tables a v0 message loads accounts
// from, in order; nil when it uses none.
func (t *Tx) LookupTables() []solana.PublicKey {
	var out []solana.PublicKey
	for _, l := range t.msg.lookups {
		out = append(out, l.table)
	}
	return out
}
