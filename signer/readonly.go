package signer

import (
	"errors"

	"github.com/gagliardetto/solana-go"
)

// ErrReadOnly is the error of every signing request to a ReadOnly signer.
var ErrReadOnly = errors.New("signer: read-only (only a public key is configured); nothing can be signed")

// ReadOnly is a signer that knows only the wallet's public key: for the
// commands that read (plan, wallet, history, check), it names the wallet and
// refuses every signature. It holds no key material.
type ReadOnly struct{ pk solana.PublicKey }

// NewReadOnly returns the read-only signer of wallet pk.
func NewReadOnly(pk solana.PublicKey) *ReadOnly { return &ReadOnly{pk: pk} }

// PublicKey returns the wallet's public key.
func (r *ReadOnly) PublicKey() solana.PublicKey { return r.pk }

// SignTip refuses: there is no key.
func (r *ReadOnly) SignTip([]byte, []string, uint64) (*Signed, error) { return nil, ErrReadOnly }

// SignSequence refuses: there is no key.
func (r *ReadOnly) SignSequence([]*Tx, Kind, Bounds) ([]*Signed, error) { return nil, ErrReadOnly }

// SpendAt reports no spend: nothing signed by r is ever sent.
func (r *ReadOnly) SpendAt(*Tx, int) (string, bool) { return "", false }

// CheckSequence refuses: with no key there is nothing to guard for.
func (r *ReadOnly) CheckSequence([]*Tx, Kind, Bounds) error { return ErrReadOnly }

// Unsigned refuses: a read-only signer never takes part in the action path.
func (r *ReadOnly) Unsigned(*Tx) ([]byte, error) { return nil, ErrReadOnly }
