package svm

import "github.com/gagliardetto/solana-go"

// accountView is the state as one instruction sees it: the accounts passed
// to it, with their signer and writable flags, over the transaction's
// overlay. The built-in programs and the Exec methods read and write
// through it.
type accountView struct {
	st    *Overlay
	metas []solana.AccountMeta
}

// meta returns the instruction's meta of key.
func (v accountView) meta(key solana.PublicKey) (solana.AccountMeta, bool) {
	for _, m := range v.metas {
		if m.PublicKey == key {
			return m, true
		}
	}
	return solana.AccountMeta{}, false
}

// get returns a copy of key's account, or the empty account.
func (v accountView) get(key solana.PublicKey) Account { return Load(v.st, key) }

// put stores a (the caller gives up ownership of its data).
func (v accountView) put(key solana.PublicKey, a Account) { v.st.Put(key, &a) }

// del removes key's account.
func (v accountView) del(key solana.PublicKey) { v.st.Del(key) }

// requireAccount fails with ErrMissingAccount unless key is passed to the
// instruction.
func (v accountView) requireAccount(key solana.PublicKey) error {
	if _, ok := v.meta(key); !ok {
		return ErrMissingAccount
	}
	return nil
}

// requireWritable fails unless key is a writable account of the
// instruction; err is the runtime error for a read-only one.
func (v accountView) requireWritable(key solana.PublicKey, err *ProgramError) error {
	m, ok := v.meta(key)
	if !ok {
		return ErrMissingAccount
	}
	if !m.IsWritable {
		return err
	}
	return nil
}

// putToken stores a token account's state, keeping its lamports and owner.
func (v accountView) putToken(key solana.PublicKey, t tokenAccount) {
	a := v.get(key)
	a.Data = t.Encode()
	v.put(key, a)
}

// putMint stores a mint's state, keeping its lamports and owner.
func (v accountView) putMint(key solana.PublicKey, m MintState) {
	a := v.get(key)
	a.Data = m.Encode()
	v.put(key, a)
}
