// Package p11 is the signer's key held in a PKCS#11 token (PKCS#11 3.0
// Ed25519: CKK_EC_EDWARDS, CKM_EDDSA): it opens a session, logs in, finds
// the key pair, and has the token sign, every call bounded by a deadline.
// Only the signer package uses it; the cgo build talks to the token's
// library through miekg/pkcs11, a build without cgo refuses with
// ErrNeedsCgo.
package p11

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Config says where Open finds the key: the library, the token (by label,
// or by slot when Slot is set), the private key (by label and/or id), and
// the bound of each call to the token (positive).
type Config struct {
	Module     string
	TokenLabel string
	Slot       *uint
	KeyLabel   string
	KeyID      []byte
	Timeout    time.Duration
}

// Errors of a token key, for errors.Is. None carries the PIN or text the
// library produced: a library's failure is named by its return value.
var (
	ErrNeedsCgo     = errors.New("the pkcs11 key source needs a keeper built with cgo (CGO_ENABLED=1 and a C compiler, the default where gcc is installed); this one was built without it")
	ErrAbsent       = errors.New("token not present")
	ErrPIN          = errors.New("the token refused the PIN")
	ErrKeyNotFound  = errors.New("key not found in the token")
	ErrNotEd25519   = errors.New("the token's key is not an Ed25519 key")
	ErrKeyChanged   = errors.New("the token's key changed since keeper started")
	ErrTimeout      = errors.New("the token did not answer in time")
	ErrBadSignature = errors.New("the token's signature does not verify against its public key")
	ErrClosed       = errors.New("the token key is closed")
)

// Key is a key held in a PKCS#11 token. It keeps one session, logged in,
// and has the token sign in it. It is safe for concurrent use: signatures
// take turns.
//
// Every call to the token runs in its own goroutine and is bounded by the
// timeout (and the caller's context): a cgo call cannot be interrupted, so
// one that passes its deadline is abandoned: the caller gets ErrTimeout at
// once, and the goroutine drops the session it used when the call returns at
// last. Calls take turns on line, which the abandoned call holds until it
// returns, so a hung token holds at most one goroutine and later calls fail
// at their own deadline instead of piling up.
type Key struct {
	cfg     Config
	mod     module
	pin     func() []byte // the PIN, inside a closure: no formatting reaches it
	timeout time.Duration
	pub     ed25519.PublicKey // read from the token at start
	line    chan struct{}     // held by the call in progress, even one abandoned
	closed  atomic.Bool
	// sess is the open session, nil when there is none or the last one
	// became unusable; touched only by the call holding line.
	sess session
}

// Open loads the library cfg names (once per process), logs in to the
// token with pin, finds the key pair and reads its public key. It takes
// ownership of pin, which Close clears.
func Open(ctx context.Context, cfg Config, pin []byte) (*Key, error) {
	mod, err := loadModule(cfg.Module)
	if err != nil {
		clear(pin)
		return nil, err
	}
	return open(ctx, cfg, mod, pin)
}

// open is Open through mod, whose reference it takes (and releases on
// failure).
func open(ctx context.Context, cfg Config, mod module, pin []byte) (*Key, error) {
	k := &Key{cfg: cfg, mod: mod, pin: func() []byte { return pin }, timeout: cfg.Timeout, line: make(chan struct{}, 1)}
	if _, err := call(ctx, k, "open the session", func() (struct{}, error) { return struct{}{}, k.ensureSession() }); err != nil {
		_ = k.Close()
		return nil, err
	}
	return k, nil
}

// Public returns the key's public key, read from the token at start.
func (k *Key) Public() ed25519.PublicKey { return k.pub }

// Sign has the token sign msg (CKM_EDDSA), re-opening the session and
// trying once more when the session was lost, and checks the signature
// against the public key before returning it.
func (k *Key) Sign(ctx context.Context, msg []byte) ([]byte, error) {
	raw, err := call(ctx, k, "sign", func() ([]byte, error) { return k.signInSession(msg) })
	if sessionLost(err) {
		raw, err = call(ctx, k, "sign", func() ([]byte, error) { return k.signInSession(msg) })
	}
	if err != nil {
		return nil, err
	}
	if len(raw) != ed25519.SignatureSize || !ed25519.Verify(k.pub, msg, raw) {
		return nil, ErrBadSignature
	}
	return raw, nil
}

// signInSession signs msg in the session, opening one first when there is
// none; a session found lost is dropped. The caller holds line.
func (k *Key) signInSession(msg []byte) ([]byte, error) {
	if err := k.ensureSession(); err != nil {
		return nil, err
	}
	raw, err := k.sess.sign(msg)
	if sessionLost(err) {
		k.dropSession()
	}
	return raw, err
}

// ensureSession opens a session, logs in and finds the key when there is no
// usable session: the first time, it reads the public key; after that, the
// key found must have the same one. The caller holds line.
func (k *Key) ensureSession() error {
	if k.closed.Load() {
		return ErrClosed
	}
	if k.sess != nil {
		return nil
	}
	slot, err := k.findSlot()
	if err != nil {
		return err
	}
	s, err := k.mod.openSession(slot)
	if err != nil {
		return fmt.Errorf("open a session: %w", err)
	}
	pub, err := k.login(s)
	if err != nil {
		s.close()
		return err
	}
	if k.pub == nil {
		k.pub = pub
	} else if !pub.Equal(k.pub) {
		s.close()
		return fmt.Errorf("%w: it is %s now, %s at start", ErrKeyChanged,
			solana.PublicKeyFromBytes(pub), solana.PublicKeyFromBytes(k.pub))
	}
	k.sess = s
	return nil
}

// login logs s in and finds the key pair, returning its public key.
func (k *Key) login(s session) (ed25519.PublicKey, error) {
	if err := s.login(k.pin()); err != nil {
		return nil, loginError(err)
	}
	objs, err := s.findKey(k.cfg.KeyLabel, k.cfg.KeyID)
	if err != nil {
		return nil, fmt.Errorf("find the key: %w", err)
	}
	return objs.publicKey()
}

// findSlot returns the slot of the configured token.
func (k *Key) findSlot() (uint, error) {
	slots, err := k.mod.slots()
	if err != nil {
		return 0, fmt.Errorf("list the slots: %w", err)
	}
	if want := k.cfg.Slot; want != nil {
		for _, s := range slots {
			if s == *want {
				return s, nil
			}
		}
		return 0, fmt.Errorf("%w: no token in slot %d (%d slots hold one)", ErrAbsent, *want, len(slots))
	}
	var found []uint
	var unread error // the last failure to read a label: that token is not the one asked for
	for _, s := range slots {
		label, err := k.mod.tokenLabel(s)
		switch {
		case err != nil:
			unread = fmt.Errorf("the token in slot %d does not say its label: %w", s, err)
		case label == k.cfg.TokenLabel:
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		if unread != nil {
			return 0, fmt.Errorf("%w: no token has this label (%d slots hold one; %w)", ErrAbsent, len(slots), unread)
		}
		return 0, fmt.Errorf("%w: no token has this label (%d slots hold one)", ErrAbsent, len(slots))
	case 1:
		return found[0], nil
	}
	return 0, fmt.Errorf("%d tokens have this label; pick one by its slot", len(found))
}

// dropSession closes the session, which is no longer usable. The caller
// holds line.
func (k *Key) dropSession() {
	if k.sess != nil {
		k.sess.close()
		k.sess = nil
	}
}

// Close ends the session and releases the library: at once when no call is
// running, else when the running one returns (a call abandoned at its
// deadline keeps them until then).
func (k *Key) Close() error {
	if k.closed.Swap(true) {
		return nil
	}
	select {
	case k.line <- struct{}{}:
		k.release()
	default:
		go func() {
			k.line <- struct{}{}
			k.release()
		}()
	}
	return nil
}

// release closes the session, releases the module and clears the PIN. The
// caller holds line, for good.
func (k *Key) release() {
	k.dropSession()
	k.mod.release()
	clear(k.pin())
}

// call runs op, a call to the token, bounded by the key's timeout and ctx;
// what names it in errors. It waits for line first (within the same
// bound). When the bound passes before op returns, call returns
// ErrTimeout and abandons op: op's goroutine drops the session and
// frees line when op returns.
func call[T any](ctx context.Context, k *Key, what string, op func() (T, error)) (T, error) {
	var zero T
	if k.closed.Load() {
		return zero, ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	if ctx.Err() != nil { // ended before the call: never start it
		return zero, k.late(ctx, what, "nothing reached the token")
	}
	select {
	case k.line <- struct{}{}:
	case <-ctx.Done():
		return zero, k.late(ctx, what, "an earlier call that passed its deadline has not returned")
	}
	if k.closed.Load() {
		<-k.line
		return zero, ErrClosed
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	var state atomic.Int32 // callRunning, then callAnswered or callAbandoned
	go func() {
		v, err := op()
		if state.CompareAndSwap(callRunning, callAnswered) {
			done <- result{v, err}
			return
		}
		k.dropSession() // abandoned: the session may be mid-operation
		<-k.line
	}()
	select {
	case r := <-done:
		<-k.line
		return r.v, r.err
	case <-ctx.Done():
		if state.CompareAndSwap(callRunning, callAbandoned) {
			return zero, k.late(ctx, what, "the session is dropped and the next call opens a new one")
		}
		r := <-done // op answered just as the bound passed
		<-k.line
		return r.v, r.err
	}
}

// The states of one call to the token.
const (
	callRunning int32 = iota
	callAnswered
	callAbandoned
)

// late is the error of a call the bound of ctx ended, saying what follows:
// ErrTimeout for a deadline, else the context's error.
func (k *Key) late(ctx context.Context, what, then string) error {
	if err := context.Cause(ctx); !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w; %s", what, err, then)
	}
	return fmt.Errorf("%s: %w (%s); %s", what, ErrTimeout, k.timeout, then)
}
