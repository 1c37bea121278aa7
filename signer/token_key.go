package signer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
)

// tokenKey is a key held in a PKCS#11 token. It keeps one session, logged
// in, and has the token sign in it.
//
// Every call to the token runs in its own goroutine and is bounded by the
// source's timeout (and the caller's context): a cgo call cannot be
// interrupted, so one that passes its deadline is abandoned: the caller gets
// ErrTokenTimeout at once, and the goroutine drops the session it used when
// the call returns at last. Calls take turns on line, which the abandoned
// call holds until it returns, so a hung token holds at most one goroutine
// and later calls fail at their own deadline instead of piling up.
type tokenKey struct {
	src     TokenSource
	mod     module
	pin     func() []byte // the PIN, inside a closure (see secret)
	timeout time.Duration
	pub     ed25519.PublicKey // read from the token at start
	line    chan struct{}     // held by the call in progress, even one abandoned
	closed  atomic.Bool
	// sess is the open session, nil when there is none or the last one
	// became unusable; touched only by the call holding line.
	sess session
}

// openTokenKey logs in to the token src names through mod, finds the key
// pair and reads its public key. It takes ownership of pin and of mod's
// reference, which it releases on failure.
func openTokenKey(ctx context.Context, src TokenSource, mod module, pin []byte) (*tokenKey, error) {
	k := &tokenKey{src: src, mod: mod, pin: func() []byte { return pin }, timeout: src.timeout(), line: make(chan struct{}, 1)}
	if _, err := call(ctx, k, "open the session", func() (struct{}, error) { return struct{}{}, k.ensureSession() }); err != nil {
		_ = k.close()
		return nil, src.errorf("%w", err)
	}
	return k, nil
}

// signer returns the Signer of the key, which has the token sign.
func (k *tokenKey) signer() *Signer {
	s := &Signer{key: &secret{sign: k.sign, close: k.close}}
	copy(s.pub[:], k.pub)
	return s
}

// sign has the token sign msg, re-opening the session and trying once more
// when the session was lost, and checks the signature against the public
// key before it is used.
func (k *tokenKey) sign(ctx context.Context, msg []byte) (solana.Signature, error) {
	raw, err := call(ctx, k, "sign", func() ([]byte, error) { return k.signInSession(msg) })
	if sessionLost(err) {
		raw, err = call(ctx, k, "sign", func() ([]byte, error) { return k.signInSession(msg) })
	}
	if err != nil {
		return solana.Signature{}, k.src.errorf("sign: %w", err)
	}
	if len(raw) != ed25519.SignatureSize || !ed25519.Verify(k.pub, msg, raw) {
		return solana.Signature{}, k.src.errorf("sign: %w", ErrTokenBadSignature)
	}
	var sig solana.Signature
	copy(sig[:], raw)
	return sig, nil
}

// signInSession signs msg in the session, opening one first when there is
// none; a session found lost is dropped. The caller holds line.
func (k *tokenKey) signInSession(msg []byte) ([]byte, error) {
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
func (k *tokenKey) ensureSession() error {
	if k.closed.Load() {
		return ErrTokenClosed
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
		return fmt.Errorf("%w: it is %s now, %s at start", ErrTokenKeyChanged,
			solana.PublicKeyFromBytes(pub), solana.PublicKeyFromBytes(k.pub))
	}
	k.sess = s
	return nil
}

// login logs s in and finds the key pair, returning its public key.
func (k *tokenKey) login(s session) (ed25519.PublicKey, error) {
	if err := s.login(k.pin()); err != nil {
		return nil, loginError(err)
	}
	objs, err := s.findKey(k.src.KeyLabel, k.src.KeyID)
	if err != nil {
		return nil, fmt.Errorf("find the key: %w", err)
	}
	return objs.publicKey()
}

// findSlot returns the slot of the configured token.
func (k *tokenKey) findSlot() (uint, error) {
	slots, err := k.mod.slots()
	if err != nil {
		return 0, fmt.Errorf("list the slots: %w", err)
	}
	if want := k.src.Slot; want != nil {
		for _, s := range slots {
			if s == *want {
				return s, nil
			}
		}
		return 0, fmt.Errorf("%w: no token in slot %d (%d slots hold one)", ErrTokenAbsent, *want, len(slots))
	}
	var found []uint
	var unread error // the last failure to read a label: that token is not the one asked for
	for _, s := range slots {
		label, err := k.mod.tokenLabel(s)
		switch {
		case err != nil:
			unread = fmt.Errorf("the token in slot %d does not say its label: %w", s, err)
		case label == k.src.TokenLabel:
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		if unread != nil {
			return 0, fmt.Errorf("%w: no token has this label (%d slots hold one; %w)", ErrTokenAbsent, len(slots), unread)
		}
		return 0, fmt.Errorf("%w: no token has this label (%d slots hold one)", ErrTokenAbsent, len(slots))
	case 1:
		return found[0], nil
	}
	return 0, fmt.Errorf("%d tokens have this label; pick one by its slot", len(found))
}

// dropSession closes the session, which is no longer usable. The caller
// holds line.
func (k *tokenKey) dropSession() {
	if k.sess != nil {
		k.sess.close()
		k.sess = nil
	}
}

// close ends the session and releases the module: at once when no call is
// running, else when the running one returns (a call abandoned at its
// deadline keeps them until then).
func (k *tokenKey) close() error {
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
func (k *tokenKey) release() {
	k.dropSession()
	k.mod.release()
	clear(k.pin())
}

// call runs op, a call to the token, bounded by the key's timeout and ctx;
// what names it in errors. It waits for line first (within the same
// bound). When the bound passes before op returns, call returns
// ErrTokenTimeout and abandons op: op's goroutine drops the session and
// frees line when op returns.
func call[T any](ctx context.Context, k *tokenKey, what string, op func() (T, error)) (T, error) {
	var zero T
	if k.closed.Load() {
		return zero, ErrTokenClosed
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
		return zero, ErrTokenClosed
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
// ErrTokenTimeout for a deadline, else the context's error.
func (k *tokenKey) late(ctx context.Context, what, then string) error {
	if err := context.Cause(ctx); !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w; %s", what, err, then)
	}
	return fmt.Errorf("%s: %w (%s); %s", what, ErrTokenTimeout, k.timeout, then)
}
