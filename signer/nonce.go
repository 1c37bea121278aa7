package signer

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// systemAdvanceNonce is the System program's AdvanceNonceAccount tag.
const systemAdvanceNonce = 4

// NonceInfo describes a durable-nonce transaction's first instruction.
type NonceInfo struct {
	// Account is the nonce account; zero when it is loaded through a lookup
	// table or missing.
	Account solana.PublicKey
	// Authority is the nonce authority; zero when it is loaded through a lookup
	// table or missing.
	Authority solana.PublicKey
}

// DurableNonce reports whether the transaction uses a durable nonce: its first
// instruction is the System program's AdvanceNonceAccount. Such a transaction
// does not expire with its blockhash, so it must not be treated as dead once
// the blockhash is too old. Detection is deliberately broad (any data starting
// with the AdvanceNonceAccount tag counts), so a garbled nonce instruction is
// still reported.
func (t *Tx) DurableNonce() (NonceInfo, bool) {
	m := t.msg
	if len(m.ixs) == 0 {
		return NonceInfo{}, false
	}
	ix := m.ixs[0]
	if m.keys[ix.program] != solana.SystemProgramID || len(ix.data) < 4 ||
		binary.LittleEndian.Uint32(ix.data) != systemAdvanceNonce {
		return NonceInfo{}, false
	}
	var info NonceInfo
	if len(ix.accounts) > 0 {
		info.Account, _ = m.staticKey(ix.accounts[0])
	}
	if len(ix.accounts) > 2 {
		info.Authority, _ = m.staticKey(ix.accounts[2])
	}
	return info, true
}
