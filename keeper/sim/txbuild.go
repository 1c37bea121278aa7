package sim

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// ix is one instruction to compile.
type ix struct {
	Program  solana.PublicKey
	Accounts []solana.AccountMeta
	Data     []byte
}

// builtTx is a compiled, co-signed v0 transaction.
type builtTx struct {
	msg     []byte
	signers []solana.PublicKey // the required signers, in slot order
	sigs    []solana.Signature // one per signer; zero where nobody has signed yet
}

// keyEntry is one account of a message being compiled.
type keyEntry struct {
	key              solana.PublicKey
	signer, writable bool
}

// compileV0 compiles instructions into a v0 message (no lookup tables) with feePayer first, then the
// other signers (writable before read-only) and the other accounts (writable before read-only), each
// group in first-use order.
func compileV0(feePayer solana.PublicKey, blockhash solana.Hash, ixs []ix) ([]byte, []solana.PublicKey, error) {
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
func encodeV0(header [3]byte, keys []keyEntry, bh solana.Hash, ixs []ix, pos map[solana.PublicKey]uint8) []byte {
	b := append([]byte{0x80}, header[:]...)
	b = appendShortVec(b, len(keys))
	for _, k := range keys {
		b = append(b, k.key[:]...)
	}
	b = append(b, bh[:]...)
	b = appendShortVec(b, len(ixs))
	for _, in := range ixs {
		b = append(b, pos[in.Program])
		b = appendShortVec(b, len(in.Accounts))
		for _, a := range in.Accounts {
			b = append(b, pos[a.PublicKey])
		}
		b = appendShortVec(b, len(in.Data))
		b = append(b, in.Data...)
	}
	return append(b, 0) // no address table lookups
}

// appendShortVec appends a compact-u16 length.
func appendShortVec(b []byte, n int) []byte {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// newBuiltTx compiles and signs with the keys the simulator holds (the co-signer, and the stranger
// in hostile modes); the other signature slots stay empty for the user.
func newBuiltTx(feePayer solana.PublicKey, bh solana.Hash, ixs []ix) (*builtTx, error) {
	msg, signers, err := compileV0(feePayer, bh, ixs)
	if err != nil {
		return nil, err
	}
	t := &builtTx{msg: msg, signers: signers, sigs: make([]solana.Signature, len(signers))}
	for i, k := range signers {
		switch k {
		case ids.CoSigner():
			copy(t.sigs[i][:], ed25519.Sign(ids.CoSignerKey(), msg))
		case ids.Stranger():
			if feePayer == ids.Stranger() {
				copy(t.sigs[i][:], ed25519.Sign(ids.StrangerKey(), msg))
			}
		}
	}
	if n := len(t.wire()); n > svm.MaxTransactionSize {
		return nil, fmt.Errorf("transaction of %d bytes exceeds %d", n, svm.MaxTransactionSize)
	}
	return t, nil
}

// wire returns shortvec(n) || signatures || message, empty slots as zeros.
func (t *builtTx) wire() []byte {
	b := appendShortVec(nil, len(t.sigs))
	for _, s := range t.sigs {
		b = append(b, s[:]...)
	}
	return append(b, t.msg...)
}

// apiTransaction returns the transaction object of the API: the base64 message and the signatures
// already made (base58 public key, base64 signature).
func (t *builtTx) apiTransaction() market.Transaction {
	out := market.Transaction{Message: base64.StdEncoding.EncodeToString(t.msg), Signatures: []market.Signature{}}
	for i, s := range t.sigs {
		if !s.IsZero() {
			out.Signatures = append(out.Signatures, market.Signature{
				PublicKey: t.signers[i].String(), Signature: base64.StdEncoding.EncodeToString(s[:])})
		}
	}
	return out
}

// wireBase64 returns the full wire transaction in base64, the user's slot empty.
func (t *builtTx) wireBase64() string { return base64.StdEncoding.EncodeToString(t.wire()) }

// meta builds an account meta.
func meta(k solana.PublicKey, signer, writable bool) solana.AccountMeta {
	return solana.AccountMeta{PublicKey: k, IsSigner: signer, IsWritable: writable}
}

// ata returns the associated token account of wallet and mint.
func ata(wallet, mint solana.PublicKey) solana.PublicKey {
	a, _ := svm.AssociatedTokenAddress(wallet, mint)
	return a
}

// createATAIdempotent returns the Associated Token Account program's CreateIdempotent instruction.
func createATAIdempotent(payer, wallet, mint solana.PublicKey) ix {
	return ix{Program: solana.SPLAssociatedTokenAccountProgramID, Data: []byte{1}, Accounts: []solana.AccountMeta{
		meta(payer, true, true), meta(ata(wallet, mint), false, true), meta(wallet, false, false),
		meta(mint, false, false), meta(solana.SystemProgramID, false, false), meta(solana.TokenProgramID, false, false),
	}}
}

// apiTransactions returns the API objects of txs, in order.
func apiTransactions(txs []*builtTx) []market.Transaction {
	out := make([]market.Transaction, len(txs))
	for i, t := range txs {
		out[i] = t.apiTransaction()
	}
	return out
}
