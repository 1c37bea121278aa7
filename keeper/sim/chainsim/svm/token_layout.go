package svm

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// SPL Token account sizes and the rent-exempt minimums the chain uses.
const (
	// TokenAccountSize is the size of an SPL token account.
	TokenAccountSize = 165
	// MintSize is the size of an SPL mint account.
	MintSize = 82
	// TokenAccountRent is the rent-exempt minimum of a token account, which
	// creating an associated token account charges its payer.
	TokenAccountRent = 2_039_280
	// MintRent is the rent-exempt minimum of a mint account.
	MintRent = 1_461_600
)

// Token account states.
const (
	tokenStateUninitialized = 0
	tokenStateInitialized   = 1
	tokenStateFrozen        = 2
)

// tokenAccount is a decoded SPL token account.
type tokenAccount struct {
	Mint            solana.PublicKey
	Owner           solana.PublicKey
	Amount          uint64
	delegate        *solana.PublicKey
	state           uint8
	IsNative        *uint64
	delegatedAmount uint64
	closeAuthority  *solana.PublicKey
}

// MintState is a decoded SPL mint.
type MintState struct {
	authority   *solana.PublicKey
	Supply      uint64
	Decimals    uint8
	Initialized bool
	freeze      *solana.PublicKey
}

// DecodeTokenAccount decodes a 165-byte token account.
func DecodeTokenAccount(d []byte) (tokenAccount, bool) {
	if len(d) != TokenAccountSize {
		return tokenAccount{}, false
	}
	t := tokenAccount{
		Mint:            solana.PublicKeyFromBytes(d[0:32]),
		Owner:           solana.PublicKeyFromBytes(d[32:64]),
		Amount:          binary.LittleEndian.Uint64(d[64:72]),
		delegate:        getOptionKey(d[72:108]),
		state:           d[108],
		delegatedAmount: binary.LittleEndian.Uint64(d[121:129]),
		closeAuthority:  getOptionKey(d[129:165]),
	}
	if binary.LittleEndian.Uint32(d[109:113]) == 1 {
		v := binary.LittleEndian.Uint64(d[113:121])
		t.IsNative = &v
	}
	return t, true
}

// Encode returns the account's 165 bytes.
func (t tokenAccount) Encode() []byte {
	d := make([]byte, TokenAccountSize)
	copy(d[0:32], t.Mint[:])
	copy(d[32:64], t.Owner[:])
	binary.LittleEndian.PutUint64(d[64:72], t.Amount)
	putOptionKey(d[72:108], t.delegate)
	d[108] = t.state
	if t.IsNative != nil {
		binary.LittleEndian.PutUint32(d[109:113], 1)
		binary.LittleEndian.PutUint64(d[113:121], *t.IsNative)
	}
	binary.LittleEndian.PutUint64(d[121:129], t.delegatedAmount)
	putOptionKey(d[129:165], t.closeAuthority)
	return d
}

// DecodeMint decodes an 82-byte mint.
func DecodeMint(d []byte) (MintState, bool) {
	if len(d) != MintSize {
		return MintState{}, false
	}
	return MintState{
		authority:   getOptionKey(d[0:36]),
		Supply:      binary.LittleEndian.Uint64(d[36:44]),
		Decimals:    d[44],
		Initialized: d[45] == 1,
		freeze:      getOptionKey(d[46:82]),
	}, true
}

// Encode returns the mint's 82 bytes.
func (m MintState) Encode() []byte {
	d := make([]byte, MintSize)
	putOptionKey(d[0:36], m.authority)
	binary.LittleEndian.PutUint64(d[36:44], m.Supply)
	d[44] = m.Decimals
	if m.Initialized {
		d[45] = 1
	}
	putOptionKey(d[46:82], m.freeze)
	return d
}

// getOptionKey decodes a COption<Pubkey>: a u32 tag and 32 bytes.
func getOptionKey(d []byte) *solana.PublicKey {
	if binary.LittleEndian.Uint32(d[0:4]) != 1 {
		return nil
	}
	k := solana.PublicKeyFromBytes(d[4:36])
	return &k
}

// putOptionKey encodes a COption<Pubkey> into 36 bytes.
func putOptionKey(d []byte, k *solana.PublicKey) {
	if k == nil {
		return
	}
	binary.LittleEndian.PutUint32(d[0:4], 1)
	copy(d[4:36], k[:])
}

// TokenAccountOf decodes an initialized token account owned by the Token
// program, with the Token program's errors.
func TokenAccountOf(a Account) (tokenAccount, error) {
	return decodeTokenState(a, DecodeTokenAccount, func(t tokenAccount) bool { return t.state != tokenStateUninitialized })
}

// MintOf decodes an initialized mint owned by the Token program.
func MintOf(a Account) (MintState, error) {
	return decodeTokenState(a, DecodeMint, func(m MintState) bool { return m.Initialized })
}

// decodeTokenState decodes a's data with decode and checks, with the Token
// program's errors, that the Token program owns a and that the state is
// initialized.
func decodeTokenState[T any](a Account, decode func([]byte) (T, bool), initialized func(T) bool) (T, error) {
	v, ok := decode(a.Data)
	switch {
	case !ok:
		return v, ErrInvalidAccountData
	case a.Owner != solana.TokenProgramID:
		return v, ErrIncorrectProgramID
	case !initialized(v):
		return v, CustomError(tokenErrUninitializedState)
	}
	return v, nil
}

// NewTokenAccount returns a fresh associated token account's state.
func NewTokenAccount(wallet, mint solana.PublicKey) Account {
	t := tokenAccount{Mint: mint, Owner: wallet, state: tokenStateInitialized}
	return Account{Lamports: TokenAccountRent, Owner: solana.TokenProgramID, Data: t.Encode()}
}
