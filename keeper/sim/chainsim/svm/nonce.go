package svm

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// NonceAccountSize is the size of a durable nonce account.
const NonceAccountSize = 80

// NonceState is a decoded, initialized nonce account.
type NonceState struct {
	Authority solana.PublicKey
	Nonce     solana.Hash
}

// DurableNonceFrom derives a nonce value from a blockhash, as the runtime
// does.
func DurableNonceFrom(blockhash solana.Hash) solana.Hash {
	return sha256.Sum256(append([]byte("DURABLE_NONCE"), blockhash[:]...))
}

// DecodeNonce decodes an initialized nonce account.
func DecodeNonce(a Account) (NonceState, bool) {
	d := a.Data
	if a.Owner != solana.SystemProgramID || len(d) != NonceAccountSize ||
		binary.LittleEndian.Uint32(d[0:]) != 1 || binary.LittleEndian.Uint32(d[4:]) != 1 {
		return NonceState{}, false
	}
	return NonceState{Authority: solana.PublicKeyFromBytes(d[8:40]), Nonce: solana.HashFromBytes(d[40:72])}, true
}

// Encode returns the nonce account's data.
func (n NonceState) Encode() []byte {
	d := make([]byte, NonceAccountSize)
	binary.LittleEndian.PutUint32(d[0:], 1) // Versions::Current
	binary.LittleEndian.PutUint32(d[4:], 1) // State::Initialized
	copy(d[8:40], n.Authority[:])
	copy(d[40:72], n.Nonce[:])
	binary.LittleEndian.PutUint64(d[72:], LamportsPerSignature)
	return d
}

// NonceAccountOf returns the nonce account a transaction uses, if its first
// instruction is AdvanceNonceAccount.
func NonceAccountOf(t *Txn) (solana.PublicKey, bool) {
	if len(t.Msg.Instructions) == 0 {
		return solana.PublicKey{}, false
	}
	ix := t.Msg.Instructions[0]
	d := []byte(ix.Data)
	if t.Msg.AccountKeys[ix.ProgramIDIndex] != solana.SystemProgramID || len(d) != 4 ||
		binary.LittleEndian.Uint32(d) != systemAdvanceNonce || len(ix.Accounts) < 3 {
		return solana.PublicKey{}, false
	}
	return t.Keys[ix.Accounts[0]], true
}

// CheckNonceTx reports whether t is a valid durable-nonce transaction: its
// nonce account is writable, holds t's blockhash, and its authority signed.
func CheckNonceTx(st Store, t *Txn) (solana.PublicKey, bool) {
	key, ok := NonceAccountOf(t)
	if !ok {
		return key, false
	}
	n, ok := DecodeNonce(Load(st, key))
	if !ok || n.Nonce != t.Msg.RecentBlockhash {
		return key, false
	}
	ix := t.Msg.Instructions[0]
	authIdx := int(ix.Accounts[2])
	return key, t.Writable[ix.Accounts[0]] && t.Keys[authIdx] == n.Authority && t.IsSigner(authIdx)
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
	n, ok := DecodeNonce(x.acc.get(acct.PublicKey))
	if !ok {
		return ErrInvalidAccountData
	}
	if auth.PublicKey != n.Authority || !auth.IsSigner {
		x.Logf("Advance nonce account: Account %s must be a signer", n.Authority)
		return ErrMissingRequiredSignature
	}
	next := DurableNonceFrom(x.pos.Hash)
	if next == n.Nonce {
		x.Log("Advance nonce account: nonce can only advance once per slot")
		return CustomError(systemErrNonceNotExpired)
	}
	n.Nonce = next
	a := x.acc.get(acct.PublicKey)
	a.Data = n.Encode()
	x.acc.put(acct.PublicKey, a)
	return nil
}
