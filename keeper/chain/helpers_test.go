package chain

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// memTransport serves requests in memory by host, so that tests run inside
// a synctest bubble (no sockets); an unknown host is a refused connection.
type memTransport map[string]http.Handler

// RoundTrip implements http.RoundTripper.
func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h, ok := t[req.URL.Host]
	if !ok {
		return nil, errors.New("dial tcp: connection refused")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// handlerFunc adapts a function to http.Handler.
type handlerFunc func(http.ResponseWriter, *http.Request)

func (f handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) { f(w, r) }

// secretRPC is the fake node's URL; its API key must never be printed.
const (
	secretKey = "SECRETAPIKEY123"
	secretRPC = "http://rpc.test/?api-key=" + secretKey
	jitoBase  = "http://jito.test"
)

// newMemClient returns a client of fc over memTransport with fast limits;
// edit adjusts the options.
func newMemClient(t testing.TB, fc *fakeChain, edit func(*Options)) (*Client, *bytes.Buffer) {
	t.Helper()
	logs := &syncBuffer{}
	o := Options{
		RPCURLs: []string{secretRPC}, JitoURL: jitoBase, JitoAuth: "jito-uuid-secret",
		RateLimit: 1000, RateBurst: 1000, JitoRateLimit: 1000,
		HTTPClient: &http.Client{Transport: memTransport{"rpc.test": fc, "jito.test": fc}},
		Logger:     slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if edit != nil {
		edit(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, &logs.buf
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// newKey returns a fresh keypair.
func newKey(t testing.TB) solana.PrivateKey {
	t.Helper()
	k, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// transferTx returns a signed transfer of lamports from payer to a fresh
// account, with blockhash bh.
func transferTx(t testing.TB, payer solana.PrivateKey, bh solana.Hash, lamports uint64) Signed {
	t.Helper()
	ix := system.NewTransferInstruction(lamports, payer.PublicKey(), solana.NewWallet().PublicKey()).Build()
	return signTx(t, []solana.Instruction{ix}, payer, bh)
}

// signTx builds and signs a legacy transaction paid by payer.
// walletSlotZeroed returns a copy of the wire transaction raw with its
// first signature slot (the fee payer's: the wallet in these tests) zeroed,
// the form keeper simulates.
func walletSlotZeroed(raw []byte) []byte {
	out := slices.Clone(raw)
	clear(out[1:65]) // one shortvec byte, then slot 0
	return out
}

func signTx(t testing.TB, ixs []solana.Instruction, payer solana.PrivateKey, bh solana.Hash, opts ...solana.TransactionOption) Signed {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, bh, append([]solana.TransactionOption{solana.TransactionPayer(payer.PublicKey())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(payer.PublicKey()) {
			return &payer
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return Signed{Raw: raw, Signature: tx.Signatures[0], Blockhash: bh}
}

// tipper returns a TipFunc signing BuildTipMessage with payer, recording the
// lamports asked for.
func tipper(payer solana.PrivateKey, asked *[]uint64) TipFunc {
	return func(_ context.Context, acct solana.PublicKey, lamports uint64, bh solana.Hash) (Signed, error) {
		*asked = append(*asked, lamports)
		msg, err := BuildTipMessage(payer.PublicKey(), acct, lamports, bh)
		if err != nil {
			return Signed{}, err
		}
		sig, err := payer.Sign(msg)
		if err != nil {
			return Signed{}, err
		}
		raw := append(append([]byte{1}, sig[:]...), msg...)
		return Signed{Raw: raw, Signature: sig, Blockhash: bh}, nil
	}
}

// withTimeout returns a context bounded in (virtual) time.
func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// contains is strings.Contains, short for assertions.
func contains(s, sub string) bool { return strings.Contains(s, sub) }

// contextCanceled returns context.Canceled.
func contextCanceled() error { return context.Canceled }

// binDecoder returns a binary decoder over b.
func binDecoder(b []byte) *bin.Decoder { return bin.NewBinDecoder(b) }
