package chainsim

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
	mint            solana.PublicKey
	owner           solana.PublicKey
	amount          uint64
	delegate        *solana.PublicKey
	state           uint8
	isNative        *uint64
	delegatedAmount uint64
	closeAuthority  *solana.PublicKey
}

// mintState is a decoded SPL mint.
type mintState struct {
	authority   *solana.PublicKey
	supply      uint64
	decimals    uint8
	initialized bool
	freeze      *solana.PublicKey
}

// decodeTokenAccount decodes a 165-byte token account.
func decodeTokenAccount(d []byte) (tokenAccount, bool) {
	if len(d) != TokenAccountSize {
		return tokenAccount{}, false
	}
	t := tokenAccount{
		mint:            solana.PublicKeyFromBytes(d[0:32]),
		owner:           solana.PublicKeyFromBytes(d[32:64]),
		amount:          binary.LittleEndian.Uint64(d[64:72]),
		delegate:        getOptionKey(d[72:108]),
		state:           d[108],
		delegatedAmount: binary.LittleEndian.Uint64(d[121:129]),
		closeAuthority:  getOptionKey(d[129:165]),
	}
	if binary.LittleEndian.Uint32(d[109:113]) == 1 {
		v := binary.LittleEndian.Uint64(d[113:121])
		t.isNative = &v
	}
	return t, true
}

// encode returns the account's 165 bytes.
func (t tokenAccount) encode() []byte {
	d := make([]byte, TokenAccountSize)
	copy(d[0:32], t.mint[:])
	copy(d[32:64], t.owner[:])
	binary.LittleEndian.PutUint64(d[64:72], t.amount)
	putOptionKey(d[72:108], t.delegate)
	d[108] = t.state
	if t.isNative != nil {
		binary.LittleEndian.PutUint32(d[109:113], 1)
		binary.LittleEndian.PutUint64(d[113:121], *t.isNative)
	}
	binary.LittleEndian.PutUint64(d[121:129], t.delegatedAmount)
	putOptionKey(d[129:165], t.closeAuthority)
	return d
}

// decodeMint decodes an 82-byte mint.
func decodeMint(d []byte) (mintState, bool) {
	if len(d) != MintSize {
		return mintState{}, false
	}
	return mintState{
		authority:   getOptionKey(d[0:36]),
		supply:      binary.LittleEndian.Uint64(d[36:44]),
		decimals:    d[44],
		initialized: d[45] == 1,
		freeze:      getOptionKey(d[46:82]),
	}, true
}

// encode returns the mint's 82 bytes.
func (m mintState) encode() []byte {
	d := make([]byte, MintSize)
	putOptionKey(d[0:36], m.authority)
	binary.LittleEndian.PutUint64(d[36:44], m.supply)
	d[44] = m.decimals
	if m.initialized {
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

// tokenAccountOf decodes an initialized token account owned by the Token
// program, with the Token program's errors.
func tokenAccountOf(a Account) (tokenAccount, error) {
	t, ok := decodeTokenAccount(a.Data)
	switch {
	case !ok:
		return t, ErrInvalidAccountData
	case a.Owner != solana.TokenProgramID:
		return t, ErrIncorrectProgramID
	case t.state == tokenStateUninitialized:
		return t, CustomError(tokenErrUninitializedState)
	}
	return t, nil
}

// mintOf decodes an initialized mint owned by the Token program.
func mintOf(a Account) (mintState, error) {
	m, ok := decodeMint(a.Data)
	switch {
	case !ok:
		return m, ErrInvalidAccountData
	case a.Owner != solana.TokenProgramID:
		return m, ErrIncorrectProgramID
	case !m.initialized:
		return m, CustomError(tokenErrUninitializedState)
	}
	return m, nil
}

// newTokenAccount returns a fresh associated token account's state.
func newTokenAccount(wallet, mint solana.PublicKey) Account {
	t := tokenAccount{mint: mint, owner: wallet, state: tokenStateInitialized}
	return Account{Lamports: TokenAccountRent, Owner: solana.TokenProgramID, Data: t.encode()}
}
