package signer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// testPIN is distinctive so that a test can look for it in every error.
const testPIN = "pin-7741-do-not-print"

// fakeToken is a PKCS#11 module holding one token and one Ed25519 key (the
// fixture wallet's), whose calls a test can make fail, hang or lose the
// session.
type fakeToken struct {
	mu      sync.Mutex
	label   string
	priv    ed25519.PrivateKey
	objs    keyObjects
	wantPIN string
	// signErrs are the errors the next signatures return, in turn.
	signErrs []error
	// hang, when not nil, makes every signature wait for it to close.
	hang     chan struct{}
	opens    int // sessions opened
	open     int // sessions open now
	signs    int // signatures asked for
	released int
	badSig   bool
}

func newFakeToken() *fakeToken {
	priv := ed25519.PrivateKey(fixture.WalletKey)
	return &fakeToken{label: "hsm", priv: priv, wantPIN: testPIN, objs: keyObjects{
		privates: 1, privType: ckkECEdwards, havePublic: true, pubType: ckkECEdwards,
		params: []byte{0x06, 0x03, 0x2b, 0x65, 0x70}, // OID 1.3.101.112
		point:  append([]byte{0x04, 0x20}, priv.Public().(ed25519.PublicKey)...),
	}}
}

func (f *fakeToken) slots() ([]uint, error) { return []uint{7}, nil }
func (f *fakeToken) tokenLabel(uint) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.label, nil
}
func (f *fakeToken) release() { f.mu.Lock(); f.released++; f.mu.Unlock() }
func (f *fakeToken) openSession(uint) (session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens++
	f.open++
	return &fakeSession{f: f}, nil
}

// stats returns the sessions opened and open and the signatures asked for.
func (f *fakeToken) stats() (opens, open, signs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens, f.open, f.signs
}

type fakeSession struct {
	f      *fakeToken
	closed bool
}

func (s *fakeSession) login(pin []byte) error {
	if string(pin) != s.f.wantPIN {
		return ckrPINIncorrect
	}
	return nil
}

func (s *fakeSession) findKey(string, []byte) (keyObjects, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return s.f.objs, nil
}

func (s *fakeSession) sign(msg []byte) ([]byte, error) {
	s.f.mu.Lock()
	s.f.signs++
	hang := s.f.hang
	var err error
	if len(s.f.signErrs) > 0 {
		err, s.f.signErrs = s.f.signErrs[0], s.f.signErrs[1:]
	}
	s.f.mu.Unlock()
	if hang != nil {
		<-hang
	}
	if err != nil {
		return nil, err
	}
	if s.f.badSig {
		return make([]byte, ed25519.SignatureSize), nil
	}
	return ed25519.Sign(s.f.priv, msg), nil
}

func (s *fakeSession) close() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.f.open--
	}
}

// fakeSource is a key source naming the fake token.
func fakeSource() TokenSource {
	return TokenSource{Module: "/fake/libhsm.so", TokenLabel: "hsm", KeyLabel: "wallet", PIN: testPIN, Timeout: time.Second}
}

// openFake opens the fake token's key, closed when the test ends.
func openFake(t *testing.T, f *fakeToken, src TokenSource) *tokenKey {
	t.Helper()
	k, err := openTokenKey(t.Context(), src, f, []byte(src.PIN))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = k.close() })
	return k
}

// noPIN fails t when err's text holds the PIN.
func noPIN(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testPIN) {
		t.Errorf("error shows the PIN: %v", err)
	}
}

func TestTokenKeySigns(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeSource())
	s := k.signer()
	if s.PublicKey() != fixture.Wallet {
		t.Fatalf("public key %s, want the token's %s", s.PublicKey(), fixture.Wallet)
	}
	msg := []byte("message")
	sig, err := s.key.sign(t.Context(), msg)
	if err != nil || !ed25519.Verify(fixture.Wallet[:], msg, sig[:]) {
		t.Fatalf("sign: %v, verifies %v", err, err == nil && ed25519.Verify(fixture.Wallet[:], msg, sig[:]))
	}
	if opens, _, _ := f.stats(); opens != 1 {
		t.Errorf("%d sessions opened for the start and one signature, want 1", opens)
	}
	if err := s.WriteKeypairFile(filepath.Join(t.TempDir(), "k.json")); err == nil {
		t.Error("a token key was written to a file")
	}
	for _, text := range []string{fmt.Sprintf("%v %+v %#v %s", s, s, s, s), fmt.Sprintf("%+v %#v", *s.key, s.key)} {
		if strings.Contains(text, testPIN) {
			t.Errorf("formatting shows the PIN: %s", text)
		}
	}
}

// TestTokenKeyGuardFirst: a transaction the guard refuses never reaches
// the token; one it passes does.
func TestTokenKeyGuardFirst(t *testing.T) {
	f := newFakeToken()
	s, err := openFake(t, f, fakeSource()).signer().WithGuard(fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignTip(solanaGoTip(t, fixture.Wallet, fixture.Stranger, 1000), tipAccounts(), 10_000); !isRefusal(err, RuleSOLTransfer) {
		t.Fatalf("tip to a stranger: %v, want a %s refusal", err, RuleSOLTransfer)
	}
	if _, _, signs := f.stats(); signs != 0 {
		t.Fatalf("the token was asked for %d signatures of a refused transaction", signs)
	}
	signed, err := s.SignTip(solanaGoTip(t, fixture.Wallet, fixture.TipAccounts[0], 1000), tipAccounts(), 10_000)
	if err != nil {
		t.Fatalf("tip: %v", err)
	}
	if _, _, signs := f.stats(); signs != 1 || !verifies(signed) {
		t.Errorf("%d signatures asked of the token; signature verifies: %v", signs, verifies(signed))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.SignTipContext(ctx, solanaGoTip(t, fixture.Wallet, fixture.TipAccounts[0], 1000), tipAccounts(), 10_000); !errors.Is(err, context.Canceled) {
		t.Errorf("SignTipContext with its context ended: %v, want %v", err, context.Canceled)
	}
	if _, _, signs := f.stats(); signs != 1 {
		t.Errorf("a signature with its context ended reached the token (%d signatures)", signs)
	}
}

// verifies reports whether s's signature verifies over its message.
func verifies(s *Signed) bool {
	tx, err := DecodeWire(s.Base64())
	return err == nil && ed25519.Verify(fixture.Wallet[:], tx.raw, s.Signature[:])
}

func isRefusal(err error, rule Rule) bool {
	r, ok := errors.AsType[*Refusal](err)
	return ok && r.Rule == rule
}

// TestTokenKeyStartFailures: each way the token can fail at start is named
// by its own error, none showing the PIN.
func TestTokenKeyStartFailures(t *testing.T) {
	tests := []struct {
		name string
		edit func(*fakeToken, *TokenSource)
		want error
	}{
		{"token absent", func(f *fakeToken, _ *TokenSource) { f.label = "other" }, ErrTokenAbsent},
		{"slot absent", func(_ *fakeToken, s *TokenSource) { slot := uint(3); s.Slot, s.TokenLabel = &slot, "" }, ErrTokenAbsent},
		{"wrong PIN", func(f *fakeToken, _ *TokenSource) { f.wantPIN = "0000" }, ErrTokenPIN},
		{"key not found", func(f *fakeToken, _ *TokenSource) { f.objs.privates = 0 }, ErrTokenKeyNotFound},
		{"two keys match", func(f *fakeToken, _ *TokenSource) { f.objs.privates = 2 }, ErrTokenKeyNotFound},
		{"no public key object", func(f *fakeToken, _ *TokenSource) { f.objs.havePublic = false }, ErrTokenKeyNotFound},
		{"an EC P-256 key", func(f *fakeToken, _ *TokenSource) { f.objs.privType, f.objs.pubType = 3, 3 }, ErrTokenNotEd25519},
		{"edwards448", func(f *fakeToken, _ *TokenSource) { f.objs.params = []byte{0x06, 0x03, 0x2b, 0x65, 0x71} }, ErrTokenNotEd25519},
		{"short point", func(f *fakeToken, _ *TokenSource) { f.objs.point = f.objs.point[:20] }, ErrTokenNotEd25519},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, src := newFakeToken(), fakeSource()
			tt.edit(f, &src)
			_, err := openTokenKey(t.Context(), src, f, []byte(src.PIN))
			if !errors.Is(err, tt.want) {
				t.Fatalf("open: %v, want %v", err, tt.want)
			}
			noPIN(t, err)
			if _, open, _ := f.stats(); open != 0 || f.released != 1 {
				t.Errorf("after a failed start: %d sessions open, module released %d times; want 0 and 1", open, f.released)
			}
		})
	}
}

// TestTokenKeyCurveNames: CKA_EC_PARAMS may name the curve by OID or by
// its printable name, as SoftHSM writes it; a bare 32-byte point is taken.
func TestTokenKeyCurveNames(t *testing.T) {
	f := newFakeToken()
	f.objs.params = append([]byte{0x13, 0x0c}, "edwards25519"...)
	f.objs.point = f.objs.point[2:]
	if k := openFake(t, f, fakeSource()); k.signer().PublicKey() != fixture.Wallet {
		t.Errorf("public key %s", k.signer().PublicKey())
	}
}

// TestTokenKeySessionLost: a session lost mid-run is re-opened and the
// signature tried once more; lost twice, the signature fails.
func TestTokenKeySessionLost(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeSource())
	f.signErrs = []error{ckrSessionHandleInvalid}
	msg := []byte("m")
	if _, err := k.sign(t.Context(), msg); err != nil {
		t.Fatalf("sign after a lost session: %v", err)
	}
	if opens, open, signs := f.stats(); opens != 2 || open != 1 || signs != 2 {
		t.Errorf("opened %d sessions (%d open) for %d signatures; want a second session and one retry", opens, open, signs)
	}
	f.signErrs = []error{ckrDeviceRemoved, ckrSessionClosed}
	if _, err := k.sign(t.Context(), msg); !errors.Is(err, ckrSessionClosed) {
		t.Fatalf("sign with the session lost twice: %v, want CKR_SESSION_CLOSED", err)
	}
	if _, _, signs := f.stats(); signs != 4 {
		t.Errorf("%d signatures asked, want one retry only (4)", signs)
	}
	f.signErrs = []error{ckrFunctionFailed} // not a lost session
	if _, err := k.sign(t.Context(), msg); err == nil || !strings.Contains(err.Error(), "PKCS#11 CKR_FUNCTION_FAILED (0x6)") {
		t.Fatalf("sign failing: %v", err)
	}
	if _, _, signs := f.stats(); signs != 5 {
		t.Errorf("a failure that is not a lost session was retried (%d signatures)", signs)
	}
}

// TestTokenKeyChangedKey: a re-opened session whose key differs from the
// one read at start signs nothing.
func TestTokenKeyChangedKey(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeSource())
	f.signErrs = []error{ckrSessionHandleInvalid}
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	f.mu.Lock()
	f.priv, f.objs.point = other, other.Public().(ed25519.PublicKey)
	f.mu.Unlock()
	if _, err := k.sign(t.Context(), []byte("m")); !errors.Is(err, ErrTokenKeyChanged) {
		t.Fatalf("sign: %v, want %v", err, ErrTokenKeyChanged)
	}
	if _, _, signs := f.stats(); signs != 1 {
		t.Errorf("%d signatures asked, want only the one that lost its session", signs)
	}
}

// TestTokenKeyBadSignature: a signature that does not verify is not used.
func TestTokenKeyBadSignature(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeSource())
	f.badSig = true
	if _, err := k.sign(t.Context(), []byte("m")); !errors.Is(err, ErrTokenBadSignature) {
		t.Fatalf("sign: %v, want %v", err, ErrTokenBadSignature)
	}
}

// TestTokenKeyHung: a signature the token does not answer fails at the
// deadline; while the abandoned call has not returned, later calls fail at
// theirs without reaching the token; once it returns, its session is
// dropped and the next signature opens a new one.
func TestTokenKeyHung(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeToken()
		k := openFake(t, f, fakeSource())
		f.hang = make(chan struct{})
		start := time.Now()
		_, err := k.sign(t.Context(), []byte("m"))
		if !errors.Is(err, ErrTokenTimeout) || time.Since(start) != time.Second {
			t.Fatalf("hung sign: %v after %s, want %v after 1s", err, time.Since(start), ErrTokenTimeout)
		}
		_, err = k.sign(t.Context(), []byte("m"))
		if !errors.Is(err, ErrTokenTimeout) || !strings.Contains(err.Error(), "earlier call") {
			t.Fatalf("sign behind a hung call: %v", err)
		}
		if _, _, signs := f.stats(); signs != 1 {
			t.Fatalf("%d signatures reached the token, want only the hung one", signs)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := k.sign(ctx, []byte("m")); !errors.Is(err, context.Canceled) {
			t.Fatalf("sign with a cancelled context: %v", err)
		}
		close(f.hang)
		synctest.Wait()
		if _, open, _ := f.stats(); open != 0 {
			t.Fatalf("%d sessions open after the hung call returned, want its session dropped", open)
		}
		f.hang = nil
		if _, err := k.sign(t.Context(), []byte("m")); err != nil {
			t.Fatalf("sign after the token answered again: %v", err)
		}
		if opens, open, _ := f.stats(); opens != 2 || open != 1 {
			t.Errorf("%d sessions opened, %d open; want a new one", opens, open)
		}
	})
}

// TestTokenKeyClose: a closed key signs nothing, and its session and
// module are released.
func TestTokenKeyClose(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeSource())
	s := k.signer()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.key.sign(t.Context(), []byte("m")); !errors.Is(err, ErrTokenClosed) {
		t.Fatalf("sign after Close: %v", err)
	}
	if _, open, _ := f.stats(); open != 0 || f.released != 1 {
		t.Errorf("after Close: %d sessions open, module released %d times", open, f.released)
	}
}

// TestTokenSourceCheck: the settings and the PIN are checked before the
// token is touched; the PIN file is held to a key file's permissions.
func TestTokenSourceCheck(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "libhsm.so")
	pinFile := filepath.Join(dir, "pin")
	if err := os.WriteFile(module, []byte("not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pinFile, []byte(testPIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := TokenSource{Module: module, TokenLabel: "hsm", KeyLabel: "wallet", PINFile: pinFile}
	pin, err := ok.readPIN()
	if err != nil || string(pin) != testPIN {
		t.Fatalf("readPIN: %q, %v", pin, err)
	}
	slot := uint(0)
	tests := []struct {
		name string
		edit func(*TokenSource)
		want string
	}{
		{"no module", func(s *TokenSource) { s.Module = "" }, "no module"},
		{"missing module", func(s *TokenSource) { s.Module += ".gone" }, "no such file"},
		{"label and slot", func(s *TokenSource) { s.Slot = &slot }, "either a token label or a slot"},
		{"no key", func(s *TokenSource) { s.KeyLabel = "" }, "key label, a key id"},
		{"two PINs", func(s *TokenSource) { s.PIN = testPIN }, "either a PIN file"},
		{"no PIN", func(s *TokenSource) { s.PINFile = "" }, "either a PIN file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ok
			tt.edit(&src)
			err := CheckTokenSource(src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("check: %v, want %q", err, tt.want)
			}
			noPIN(t, err)
		})
	}
	if err := os.Chmod(pinFile, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ok.readPIN(); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a PIN file others can read: %v", err)
	}
	ok.AllowInsecurePermissions = true
	if _, err := ok.readPIN(); err != nil {
		t.Errorf("allowed insecure PIN file: %v", err)
	}
}
