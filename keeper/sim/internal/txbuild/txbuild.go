// Package txbuild compiles the simulated market's answers into transactions:
// v0 messages without lookup tables, the fee payer first, co-signed with the
// keys the simulator holds, as the API returns them.
package txbuild

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// Instruction is one instruction to compile.
type Instruction struct {
	Program  solana.PublicKey
	Accounts []solana.AccountMeta
	Data     []byte
}

// Tx is a compiled, co-signed v0 transaction.
type Tx struct {
	Msg     []byte
	Signers []solana.PublicKey // the required signers, in slot order
	Sigs    []solana.Signature // one per signer; zero where nobody has signed yet
}

// keyEntry is one account of a message being compiled.
type keyEntry struct {
	key              solana.PublicKey
	signer, writable bool
}

// compileV0 compiles instructions into a v0 message (no lookup tables) with feePayer first, then the
// other signers (writable before read-only) and the other accounts (writable before read-only), each
// group in first-use order.
func compileV0(feePayer solana.PublicKey, blockhash solana.Hash, ixs []Instruction) ([]byte, []solana.PublicKey, error) {
	entries := []keyEntry{{key: feePayer, signer: true, writable: true}}
	index := map[solana.PublicKey]int{feePayer: 0}
	add := func(k solana.PublicKey, signer, writable bool) {
		if i, ok := index[k]; ok {
			entries[i].signer = entries[i].signer || signer
			entries[i].writable = entries[i].writable || writable
			return
		}
		index[k] = len(entries)
		entries = append(entries, keyEntry{key: k, signer: signer, writable: writable})
	}
	for _, in := range ixs {
		for _, a := range in.Accounts {
			add(a.PublicKey, a.IsSigner, a.IsWritable)
		}
		add(in.Program, false, false)
	}
	ordered := orderKeys(entries)
	if len(ordered) > 256 {
		return nil, nil, fmt.Errorf("%d accounts do not fit in a message", len(ordered))
	}
	pos := map[solana.PublicKey]uint8{}
	var header [3]byte
	var signers []solana.PublicKey
	for i, e := range ordered {
		pos[e.key] = uint8(i)
		switch {
		case e.signer:
			header[0]++
			signers = append(signers, e.key)
			if !e.writable {
				header[1]++
			}
		case !e.writable:
			header[2]++
		}
	}
	return encodeV0(header, ordered, blockhash, ixs, pos), signers, nil
}

// orderKeys sorts entries into the runtime's groups, keeping first-use order inside each.
func orderKeys(entries []keyEntry) []keyEntry {
	out := make([]keyEntry, 0, len(entries))
	for _, group := range []struct{ signer, writable bool }{{true, true}, {true, false}, {false, true}, {false, false}} {
		for _, e := range entries {
			if e.signer == group.signer && e.writable == group.writable {
				out = append(out, e)
			}
		}
	}
	return out
}

// encodeV0 writes the v0 message bytes.
func encodeV0(header [3]byte, keys []keyEntry, bh solana.Hash, ixs []Instruction, pos map[solana.PublicKey]uint8) []byte {
	b := append([]byte{0x80}, header[:]...)
	b = AppendShortVec(b, len(keys))
	for _, k := range keys {
		b = append(b, k.key[:]...)
	}
	b = append(b, bh[:]...)
	b = AppendShortVec(b, len(ixs))
	for _, in := range ixs {
		b = append(b, pos[in.Program])
		b = AppendShortVec(b, len(in.Accounts))
		for _, a := range in.Accounts {
			b = append(b, pos[a.PublicKey])
		}
		b = AppendShortVec(b, len(in.Data))
		b = append(b, in.Data...)
	}
	return append(b, 0) // no address table lookups
}

// AppendShortVec appends a compact-u16 length.
func AppendShortVec(b []byte, n int) []byte {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// NewTx compiles and signs with the keys the simulator holds (the co-signer, and the stranger
// in hostile modes); the other signature slots stay empty for the user.
func NewTx(feePayer solana.PublicKey, bh solana.Hash, ixs []Instruction) (*Tx, error) {
	msg, signers, err := compileV0(feePayer, bh, ixs)
	if err != nil {
		return nil, err
	}
	t := &Tx{Msg: msg, Signers: signers, Sigs: make([]solana.Signature, len(signers))}
	for i, k := range signers {
		switch k {
		case ids.CoSigner():
			copy(t.Sigs[i][:], ed25519.Sign(ids.CoSignerKey(), msg))
		case ids.Stranger():
			if feePayer == ids.Stranger() {
				copy(t.Sigs[i][:], ed25519.Sign(ids.StrangerKey(), msg))
			}
		}
	}
	if n := len(t.wire()); n > svm.MaxTransactionSize {
		return nil, fmt.Errorf("transaction of %d bytes exceeds %d", n, svm.MaxTransactionSize)
	}
	return t, nil
}

// wire returns shortvec(n) || signatures || message, empty slots as zeros.
func (t *Tx) wire() []byte {
	b := AppendShortVec(nil, len(t.Sigs))
	for _, s := range t.Sigs {
		b = append(b, s[:]...)
	}
	return append(b, t.Msg...)
}

// ApiTransaction returns the transaction object of the API: the base64 message and the signatures
// already made (base58 public key, base64 signature).
func (t *Tx) ApiTransaction() apiwire.Transaction {
	out := apiwire.Transaction{Message: base64.StdEncoding.EncodeToString(t.Msg), Signatures: []apiwire.Signature{}}
	for i, s := range t.Sigs {
		if !s.IsZero() {
			out.Signatures = append(out.Signatures, apiwire.Signature{
				PublicKey: t.Signers[i].String(), Signature: base64.StdEncoding.EncodeToString(s[:])})
		}
	}
	return out
}

// WireBase64 returns the full wire transaction in base64, the user's slot empty.
func (t *Tx) WireBase64() string { return base64.StdEncoding.EncodeToString(t.wire()) }

// Meta builds an account meta.
func Meta(k solana.PublicKey, signer, writable bool) solana.AccountMeta {
	return solana.AccountMeta{PublicKey: k, IsSigner: signer, IsWritable: writable}
}

// Ata returns the associated token account of wallet and mint.
func Ata(wallet, mint solana.PublicKey) solana.PublicKey {
	a, _ := svm.AssociatedTokenAddress(wallet, mint)
	return a
}

// CreateATAIdempotent returns the Associated Token Account program's CreateIdempotent instruction.
func CreateATAIdempotent(payer, wallet, mint solana.PublicKey) Instruction {
	return Instruction{Program: solana.SPLAssociatedTokenAccountProgramID, Data: []byte{1}, Accounts: []solana.AccountMeta{
		Meta(payer, true, true), Meta(Ata(wallet, mint), false, true), Meta(wallet, false, false),
		Meta(mint, false, false), Meta(solana.SystemProgramID, false, false), Meta(solana.TokenProgramID, false, false),
	}}
}

// ApiTransactions returns the API objects of txs, in order.
func ApiTransactions(txs []*Tx) []apiwire.Transaction {
	out := make([]apiwire.Transaction, len(txs))
	for i, t := range txs {
		out[i] = t.ApiTransaction()
	}
	return out
}
