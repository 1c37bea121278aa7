package svm

import "github.com/gagliardetto/solana-go"

// Authority types of SetAuthority.
const (
	authorityMintTokens   = 0
	authorityFreeze       = 1
	authorityAccountOwner = 2
	authorityCloseAccount = 3
)

// tokenSetAuthority is SetAuthority: account or mint, current authority.
// Data: tag, authority type, then an optional new authority (a 1-byte flag
// and 32 bytes when set).
func tokenSetAuthority(x *Exec, a []solana.AccountMeta, d []byte) error {
	kind, next, err := setAuthorityArgs(d)
	if err != nil {
		return err
	}
	if err := writable(a[0]); err != nil {
		return err
	}
	acct := x.acc.get(a[0].PublicKey)
	if len(acct.Data) == MintSize {
		return setMintAuthority(x, a[0].PublicKey, a[1], kind, next)
	}
	t, err := TokenAccountOf(acct)
	if err != nil {
		return err
	}
	switch kind {
	case authorityAccountOwner:
		if err := checkAuthority(&t.Owner, a[1]); err != nil {
			return err
		}
		if next == nil {
			return CustomError(tokenErrInvalidInstruction)
		}
		t.Owner, t.delegate, t.delegatedAmount = *next, nil, 0
	case authorityCloseAccount:
		current := t.closeAuthority
		if current == nil {
			current = &t.Owner
		}
		if err := checkAuthority(current, a[1]); err != nil {
			return err
		}
		t.closeAuthority = next
	default:
		return CustomError(tokenErrAuthorityTypeUnsupported)
	}
	x.acc.putToken(a[0].PublicKey, t)
	return nil
}

// setAuthorityArgs decodes SetAuthority's data.
func setAuthorityArgs(d []byte) (byte, *solana.PublicKey, error) {
	switch {
	case len(d) == 3 && d[2] == 0:
		return d[1], nil, nil
	case len(d) == 35 && d[2] == 1:
		k := solana.PublicKeyFromBytes(d[3:35])
		return d[1], &k, nil
	}
	return 0, nil, CustomError(tokenErrInvalidInstruction)
}

// setMintAuthority changes a mint's mint or freeze authority.
func setMintAuthority(x *Exec, key solana.PublicKey, auth solana.AccountMeta, kind byte, next *solana.PublicKey) error {
	m, err := MintOf(x.acc.get(key))
	if err != nil {
		return err
	}
	var (
		current **solana.PublicKey // the authority kind names
		unset   uint32             // the error when the mint has none
	)
	switch kind {
	case authorityMintTokens:
		current, unset = &m.authority, tokenErrFixedSupply
	case authorityFreeze:
		current, unset = &m.freeze, tokenErrMintCannotFreeze
	default:
		return CustomError(tokenErrAuthorityTypeUnsupported)
	}
	if *current == nil {
		return CustomError(unset)
	}
	if err := checkAuthority(*current, auth); err != nil {
		return err
	}
	*current = next
	x.acc.putMint(key, m)
	return nil
}

// checkAuthority requires auth to be the current authority and a signer.
func checkAuthority(current *solana.PublicKey, auth solana.AccountMeta) error {
	if *current != auth.PublicKey {
		return CustomError(TokenErrOwnerMismatch)
	}
	if !auth.IsSigner {
		return ErrMissingRequiredSignature
	}
	return nil
}
