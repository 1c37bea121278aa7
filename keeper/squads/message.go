package squads

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Message is a vault transaction's message: the TransactionMessage of
// instructions/vault_transaction_create.rs, which the account keeps as
// VaultTransactionMessage (state/vault_transaction.rs). Its header counts
// differ from a Solana message's: it counts writable signers and writable
// non-signers where Solana counts read-only ones, over the same key order
// (writable signers, read-only signers, writable non-signers, read-only
// non-signers).
type Message struct {
	NumSigners            uint8
	NumWritableSigners    uint8
	NumWritableNonSigners uint8
	AccountKeys           []solana.PublicKey
	Instructions          []Instruction
	Lookups               []Lookup
}

// Instruction is a compiled instruction of a Message.
type Instruction struct {
	ProgramIDIndex uint8
	AccountIndexes []uint8
	Data           []byte
}

// Lookup is an address-table lookup of a Message.
type Lookup struct {
	Table    solana.PublicKey
	Writable []uint8
	Readonly []uint8
}

// FromSolana converts a compiled Solana message (legacy or v0) into the
// program's form, keeping its keys, instructions and lookup tables as they
// are. The recent blockhash is dropped: a vault transaction has none.
func FromSolana(m *solana.Message) (*Message, error) {
	h := m.Header
	n := len(m.AccountKeys)
	if int(h.NumRequiredSignatures) > n || h.NumReadonlySignedAccounts > h.NumRequiredSignatures ||
		int(h.NumReadonlyUnsignedAccounts) > n-int(h.NumRequiredSignatures) {
		return nil, fmt.Errorf("squads: %w: the message header does not fit its %d keys", ErrMalformed, n)
	}
	if n > 255 || len(m.Instructions) > 255 || len(m.AddressTableLookups) > 255 {
		return nil, fmt.Errorf("squads: %w: more keys, instructions or lookups than a u8 counts", ErrMalformed)
	}
	out := &Message{
		NumSigners:            h.NumRequiredSignatures,
		NumWritableSigners:    h.NumRequiredSignatures - h.NumReadonlySignedAccounts,
		NumWritableNonSigners: uint8(n-int(h.NumRequiredSignatures)) - h.NumReadonlyUnsignedAccounts,
		AccountKeys:           append([]solana.PublicKey(nil), m.AccountKeys...),
	}
	for _, ix := range m.Instructions {
		c := Instruction{ProgramIDIndex: uint8(ix.ProgramIDIndex), Data: append([]byte(nil), ix.Data...)}
		if ix.ProgramIDIndex > 255 || len(ix.Accounts) > 255 || len(ix.Data) > 65535 {
			return nil, fmt.Errorf("squads: %w: an instruction too large for the compact form", ErrMalformed)
		}
		for _, a := range ix.Accounts {
			c.AccountIndexes = append(c.AccountIndexes, uint8(a))
		}
		out.Instructions = append(out.Instructions, c)
	}
	for _, l := range m.AddressTableLookups {
		out.Lookups = append(out.Lookups, Lookup{Table: l.AccountKey,
			Writable: append([]uint8(nil), l.WritableIndexes...), Readonly: append([]uint8(nil), l.ReadonlyIndexes...)})
	}
	return out, out.Validate()
}

// Solana returns m as a v0 Solana message with blockhash: the message a
// direct transaction of the same instructions would carry. The guard and
// the simulation look at the inner message in this form.
func (m *Message) Solana(blockhash solana.Hash) *solana.Message {
	out := &solana.Message{
		Header: solana.MessageHeader{
			NumRequiredSignatures:       m.NumSigners,
			NumReadonlySignedAccounts:   m.NumSigners - m.NumWritableSigners,
			NumReadonlyUnsignedAccounts: uint8(len(m.AccountKeys)-int(m.NumSigners)) - m.NumWritableNonSigners,
		},
		AccountKeys:     append(solana.PublicKeySlice(nil), m.AccountKeys...),
		RecentBlockhash: blockhash,
	}
	out.SetVersion(solana.MessageVersionV0)
	for _, ix := range m.Instructions {
		c := solana.CompiledInstruction{ProgramIDIndex: uint16(ix.ProgramIDIndex), Data: append([]byte(nil), ix.Data...)}
		for _, a := range ix.AccountIndexes {
			c.Accounts = append(c.Accounts, uint16(a))
		}
		out.Instructions = append(out.Instructions, c)
	}
	for _, l := range m.Lookups {
		out.AddressTableLookups = append(out.AddressTableLookups, solana.MessageAddressTableLookup{
			AccountKey: l.Table, WritableIndexes: append([]uint8(nil), l.Writable...), ReadonlyIndexes: append([]uint8(nil), l.Readonly...)})
	}
	return out
}

// Validate applies the checks of TryFrom<TransactionMessage> for
// VaultTransactionMessage: the header fits the keys, and every index
// points at a static or looked-up key.
func (m *Message) Validate() error {
	n := len(m.AccountKeys)
	if int(m.NumSigners) > n || m.NumWritableSigners > m.NumSigners ||
		int(m.NumWritableNonSigners) > n-int(m.NumSigners) {
		return fmt.Errorf("squads: %w: the header does not fit the %d keys", ErrMalformed, n)
	}
	all := m.NumAllKeys()
	for i, ix := range m.Instructions {
		if int(ix.ProgramIDIndex) >= all {
			return fmt.Errorf("squads: %w: instruction %d names program %d of %d keys", ErrMalformed, i, ix.ProgramIDIndex, all)
		}
		for _, a := range ix.AccountIndexes {
			if int(a) >= all {
				return fmt.Errorf("squads: %w: instruction %d names account %d of %d keys", ErrMalformed, i, a, all)
			}
		}
	}
	return nil
}

// NumAllKeys counts the static and looked-up keys.
func (m *Message) NumAllKeys() int {
	n := len(m.AccountKeys)
	for _, l := range m.Lookups {
		n += len(l.Writable) + len(l.Readonly)
	}
	return n
}

// IsSigner reports whether static key i is a signer.
func (m *Message) IsSigner(i int) bool { return i < int(m.NumSigners) }

// IsStaticWritable reports whether static key i is writable
// (is_static_writable_index).
func (m *Message) IsStaticWritable(i int) bool {
	switch {
	case i >= len(m.AccountKeys):
		return false
	case i < int(m.NumWritableSigners):
		return true
	case i >= int(m.NumSigners):
		return i-int(m.NumSigners) < int(m.NumWritableNonSigners)
	}
	return false
}

// Encode returns the compact form vault_transaction_create takes:
// SmallVec<u8, _> for keys, instructions, lookups, account indexes and
// lookup indexes, SmallVec<u16, u8> for instruction data
// (utils/small_vec.rs).
func (m *Message) Encode() []byte {
	var w writer
	w.u8(m.NumSigners)
	w.u8(m.NumWritableSigners)
	w.u8(m.NumWritableNonSigners)
	w.u8(uint8(len(m.AccountKeys)))
	for _, k := range m.AccountKeys {
		w.key(k)
	}
	w.u8(uint8(len(m.Instructions)))
	for _, ix := range m.Instructions {
		w.u8(ix.ProgramIDIndex)
		w.u8(uint8(len(ix.AccountIndexes)))
		w.raw(ix.AccountIndexes)
		w.u16(uint16(len(ix.Data)))
		w.raw(ix.Data)
	}
	w.u8(uint8(len(m.Lookups)))
	for _, l := range m.Lookups {
		w.key(l.Table)
		w.u8(uint8(len(l.Writable)))
		w.raw(l.Writable)
		w.u8(uint8(len(l.Readonly)))
		w.raw(l.Readonly)
	}
	return w.b
}

// DecodeMessage reads the compact form; trailing bytes are ignored, as
// Borsh's deserialize (not try_from_slice) does.
func DecodeMessage(b []byte) (*Message, error) {
	r := &reader{b: b}
	m := readCompact(r)
	if r.err != nil {
		return nil, fmt.Errorf("squads: transaction message: %w", r.err)
	}
	return m, nil
}

func readCompact(r *reader) *Message {
	m := &Message{NumSigners: r.u8(), NumWritableSigners: r.u8(), NumWritableNonSigners: r.u8()}
	m.AccountKeys = r.keys(int(r.u8()))
	for range int(r.u8()) {
		ix := Instruction{ProgramIDIndex: r.u8()}
		ix.AccountIndexes = r.clone(int(r.u8()))
		ix.Data = r.clone(int(r.u16()))
		m.Instructions = append(m.Instructions, ix)
	}
	for range int(r.u8()) {
		l := Lookup{Table: r.key()}
		l.Writable = r.clone(int(r.u8()))
		l.Readonly = r.clone(int(r.u8()))
		m.Lookups = append(m.Lookups, l)
	}
	return m
}

// encodeStored writes m as VaultTransactionMessage: Borsh Vecs (u32
// lengths) where the compact form has SmallVecs.
func (m *Message) encodeStored(w *writer) {
	w.u8(m.NumSigners)
	w.u8(m.NumWritableSigners)
	w.u8(m.NumWritableNonSigners)
	w.keysU32(m.AccountKeys)
	w.u32(uint32(len(m.Instructions)))
	for _, ix := range m.Instructions {
		w.u8(ix.ProgramIDIndex)
		w.bytesU32(ix.AccountIndexes)
		w.bytesU32(ix.Data)
	}
	w.u32(uint32(len(m.Lookups)))
	for _, l := range m.Lookups {
		w.key(l.Table)
		w.bytesU32(l.Writable)
		w.bytesU32(l.Readonly)
	}
}

// readStored reads a VaultTransactionMessage.
func readStored(r *reader) *Message {
	m := &Message{NumSigners: r.u8(), NumWritableSigners: r.u8(), NumWritableNonSigners: r.u8()}
	m.AccountKeys = r.keys(int(r.u32()))
	n := r.u32()
	for i := uint32(0); i < n && r.err == nil; i++ {
		ix := Instruction{ProgramIDIndex: r.u8()}
		ix.AccountIndexes = r.bytesU32()
		ix.Data = r.bytesU32()
		m.Instructions = append(m.Instructions, ix)
	}
	n = r.u32()
	for i := uint32(0); i < n && r.err == nil; i++ {
		l := Lookup{Table: r.key()}
		l.Writable = r.bytesU32()
		l.Readonly = r.bytesU32()
		m.Lookups = append(m.Lookups, l)
	}
	return m
}
