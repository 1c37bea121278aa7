package p11

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
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

// fakeConfig names the fake token's key.
func fakeConfig() Config {
	return Config{Module: "/fake/libhsm.so", TokenLabel: "hsm", KeyLabel: "wallet", Timeout: time.Second}
}

// openFake opens the fake token's key, closed when the test ends.
func openFake(t *testing.T, f *fakeToken, cfg Config) *Key {
	t.Helper()
	k, err := open(t.Context(), cfg, f, []byte(testPIN))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = k.Close() })
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
	k := openFake(t, f, fakeConfig())
	if !k.Public().Equal(ed25519.PublicKey(fixture.Wallet[:])) {
		t.Fatalf("public key %x, want the token's %s", k.Public(), fixture.Wallet)
	}
	msg := []byte("message")
	sig, err := k.Sign(t.Context(), msg)
	if err != nil || !ed25519.Verify(fixture.Wallet[:], msg, sig) {
		t.Fatalf("sign: %v", err)
	}
	if opens, _, _ := f.stats(); opens != 1 {
		t.Errorf("%d sessions opened for the start and one signature, want 1", opens)
	}
	if text := fmt.Sprintf("%v %+v %#v", k, k, k); strings.Contains(text, testPIN) {
		t.Errorf("formatting shows the PIN: %s", text)
	}
}

// TestTokenKeyStartFailures: each way the token can fail at start is named
// by its own error, none showing the PIN.
func TestTokenKeyStartFailures(t *testing.T) {
	tests := []struct {
		name string
		edit func(*fakeToken, *Config)
		want error
	}{
		{"token absent", func(f *fakeToken, _ *Config) { f.label = "other" }, ErrAbsent},
		{"slot absent", func(_ *fakeToken, s *Config) { slot := uint(3); s.Slot, s.TokenLabel = &slot, "" }, ErrAbsent},
		{"wrong PIN", func(f *fakeToken, _ *Config) { f.wantPIN = "0000" }, ErrPIN},
		{"key not found", func(f *fakeToken, _ *Config) { f.objs.privates = 0 }, ErrKeyNotFound},
		{"two keys match", func(f *fakeToken, _ *Config) { f.objs.privates = 2 }, ErrKeyNotFound},
		{"no public key object", func(f *fakeToken, _ *Config) { f.objs.havePublic = false }, ErrKeyNotFound},
		{"an EC P-256 key", func(f *fakeToken, _ *Config) { f.objs.privType, f.objs.pubType = 3, 3 }, ErrNotEd25519},
		{"edwards448", func(f *fakeToken, _ *Config) { f.objs.params = []byte{0x06, 0x03, 0x2b, 0x65, 0x71} }, ErrNotEd25519},
		{"short point", func(f *fakeToken, _ *Config) { f.objs.point = f.objs.point[:20] }, ErrNotEd25519},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cfg := newFakeToken(), fakeConfig()
			tt.edit(f, &cfg)
			_, err := open(t.Context(), cfg, f, []byte(testPIN))
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
	if k := openFake(t, f, fakeConfig()); !k.Public().Equal(ed25519.PublicKey(fixture.Wallet[:])) {
		t.Errorf("public key %x", k.Public())
	}
}

// TestTokenKeySessionLost: a session lost mid-run is re-opened and the
// signature tried once more; lost twice, the signature fails.
func TestTokenKeySessionLost(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeConfig())
	f.signErrs = []error{ckrSessionHandleInvalid}
	msg := []byte("m")
	if _, err := k.Sign(t.Context(), msg); err != nil {
		t.Fatalf("sign after a lost session: %v", err)
	}
	if opens, open, signs := f.stats(); opens != 2 || open != 1 || signs != 2 {
		t.Errorf("opened %d sessions (%d open) for %d signatures; want a second session and one retry", opens, open, signs)
	}
	f.signErrs = []error{ckrDeviceRemoved, ckrSessionClosed}
	if _, err := k.Sign(t.Context(), msg); !errors.Is(err, ckrSessionClosed) {
		t.Fatalf("sign with the session lost twice: %v, want CKR_SESSION_CLOSED", err)
	}
	if _, _, signs := f.stats(); signs != 4 {
		t.Errorf("%d signatures asked, want one retry only (4)", signs)
	}
	f.signErrs = []error{ckrFunctionFailed} // not a lost session
	if _, err := k.Sign(t.Context(), msg); err == nil || !strings.Contains(err.Error(), "PKCS#11 CKR_FUNCTION_FAILED (0x6)") {
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
	k := openFake(t, f, fakeConfig())
	f.signErrs = []error{ckrSessionHandleInvalid}
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	f.mu.Lock()
	f.priv, f.objs.point = other, other.Public().(ed25519.PublicKey)
	f.mu.Unlock()
	if _, err := k.Sign(t.Context(), []byte("m")); !errors.Is(err, ErrKeyChanged) {
		t.Fatalf("sign: %v, want %v", err, ErrKeyChanged)
	}
	if _, _, signs := f.stats(); signs != 1 {
		t.Errorf("%d signatures asked, want only the one that lost its session", signs)
	}
}

// TestTokenKeyBadSignature: a signature that does not verify is not used.
func TestTokenKeyBadSignature(t *testing.T) {
	f := newFakeToken()
	k := openFake(t, f, fakeConfig())
	f.badSig = true
	if _, err := k.Sign(t.Context(), []byte("m")); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("sign: %v, want %v", err, ErrBadSignature)
	}
}

// TestTokenKeyHung: a signature the token does not answer fails at the
// deadline; while the abandoned call has not returned, later calls fail at
// theirs without reaching the token; once it returns, its session is
// dropped and the next signature opens a new one.
func TestTokenKeyHung(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeToken()
		k := openFake(t, f, fakeConfig())
		f.hang = make(chan struct{})
		start := time.Now()
		_, err := k.Sign(t.Context(), []byte("m"))
		if !errors.Is(err, ErrTimeout) || time.Since(start) != time.Second {
			t.Fatalf("hung sign: %v after %s, want %v after 1s", err, time.Since(start), ErrTimeout)
		}
		_, err = k.Sign(t.Context(), []byte("m"))
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "earlier call") {
			t.Fatalf("sign behind a hung call: %v", err)
		}
		if _, _, signs := f.stats(); signs != 1 {
			t.Fatalf("%d signatures reached the token, want only the hung one", signs)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := k.Sign(ctx, []byte("m")); !errors.Is(err, context.Canceled) {
			t.Fatalf("sign with a cancelled context: %v", err)
		}
		close(f.hang)
		synctest.Wait()
		if _, open, _ := f.stats(); open != 0 {
			t.Fatalf("%d sessions open after the hung call returned, want its session dropped", open)
		}
		f.hang = nil
		if _, err := k.Sign(t.Context(), []byte("m")); err != nil {
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
	k := openFake(t, f, fakeConfig())
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Sign(t.Context(), []byte("m")); !errors.Is(err, ErrClosed) {
		t.Fatalf("sign after Close: %v", err)
	}
	if _, open, _ := f.stats(); open != 0 || f.released != 1 {
		t.Errorf("after Close: %d sessions open, module released %d times", open, f.released)
	}
}
