package chainsim

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// NonceAccountSize is the size of a durable nonce account.
const NonceAccountSize = 80

// nonceState is a decoded, initialized nonce account.
type nonceState struct {
	authority solana.PublicKey
	nonce     solana.Hash
}

// durableNonceFrom derives a nonce value from a blockhash, as the runtime
// does.
func durableNonceFrom(blockhash solana.Hash) solana.Hash {
	return sha256.Sum256(append([]byte("DURABLE_NONCE"), blockhash[:]...))
}

// decodeNonce decodes an initialized nonce account.
func decodeNonce(a Account) (nonceState, bool) {
	d := a.Data
	if a.Owner != solana.SystemProgramID || len(d) != NonceAccountSize ||
		binary.LittleEndian.Uint32(d[0:]) != 1 || binary.LittleEndian.Uint32(d[4:]) != 1 {
		return nonceState{}, false
	}
	return nonceState{authority: solana.PublicKeyFromBytes(d[8:40]), nonce: solana.HashFromBytes(d[40:72])}, true
}

// encode returns the nonce account's data.
func (n nonceState) encode() []byte {
	d := make([]byte, NonceAccountSize)
	binary.LittleEndian.PutUint32(d[0:], 1) // Versions::Current
	binary.LittleEndian.PutUint32(d[4:], 1) // State::Initialized
	copy(d[8:40], n.authority[:])
	copy(d[40:72], n.nonce[:])
	binary.LittleEndian.PutUint64(d[72:], LamportsPerSignature)
	return d
}

// nonceAccountOf returns the nonce account a transaction uses, if its first
// instruction is AdvanceNonceAccount.
func nonceAccountOf(t *txn) (solana.PublicKey, bool) {
	if len(t.msg.Instructions) == 0 {
		return solana.PublicKey{}, false
	}
	ix := t.msg.Instructions[0]
	d := []byte(ix.Data)
	if t.msg.AccountKeys[ix.ProgramIDIndex] != solana.SystemProgramID || len(d) != 4 ||
		binary.LittleEndian.Uint32(d) != systemAdvanceNonce || len(ix.Accounts) < 3 {
		return solana.PublicKey{}, false
	}
	return t.keys[ix.Accounts[0]], true
}

// checkNonceTx reports whether t is a valid durable-nonce transaction: its
// nonce account is writable, holds t's blockhash, and its authority signed.
func checkNonceTx(st store, t *txn) (solana.PublicKey, bool) {
	key, ok := nonceAccountOf(t)
	if !ok {
		return key, false
	}
	n, ok := decodeNonce(load(st, key))
	if !ok || n.nonce != t.msg.RecentBlockhash {
		return key, false
	}
	ix := t.msg.Instructions[0]
	authIdx := int(ix.Accounts[2])
	return key, t.writable[ix.Accounts[0]] && t.keys[authIdx] == n.authority && t.isSigner(authIdx)
}

// advanceNonceIx is AdvanceNonceAccount: nonce account, recent blockhashes
// sysvar, authority (signer).
func advanceNonceIx(x *Exec, ix Instruction) error {
	if len(ix.Accounts) < 3 {
		return ErrNotEnoughAccountKeys
	}
	acct, auth := ix.Accounts[0], ix.Accounts[2]
	if !acct.IsWritable {
		return ErrReadonlyDataModified
	}
	n, ok := decodeNonce(x.get(acct.PublicKey))
	if !ok {
		return ErrInvalidAccountData
	}
	if auth.PublicKey != n.authority || !auth.IsSigner {
		x.Logf("Advance nonce account: Account %s must be a signer", n.authority)
		return ErrMissingRequiredSignature
	}
	next := durableNonceFrom(x.pos.hash)
	if next == n.nonce {
		x.Log("Advance nonce account: nonce can only advance once per slot")
		return CustomError(systemErrNonceNotExpired)
	}
	n.nonce = next
	a := x.get(acct.PublicKey)
	a.Data = n.encode()
	x.put(acct.PublicKey, a)
	return nil
}
