package chainsim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestSlotsAndHeightsByCommitment(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	advanceSlots(clk, 50)
	tests := []struct {
		cm         rpc.CommitmentType
		wantHeight uint64
	}{
		{rpc.CommitmentProcessed, 50},
		{rpc.CommitmentConfirmed, 49},
		{rpc.CommitmentFinalized, 18},
		{"", 18}, // a node's default is finalized
	}
	for _, tt := range tests {
		h, err := cl.GetBlockHeight(ctx, tt.cm)
		if err != nil || h != tt.wantHeight {
			t.Errorf("GetBlockHeight(%q) = %d, %v; want %d", tt.cm, h, err, tt.wantHeight)
		}
		s, err := cl.GetSlot(ctx, tt.cm)
		if err != nil || s != tt.wantHeight {
			t.Errorf("GetSlot(%q) = %d, %v; want %d", tt.cm, s, err, tt.wantHeight)
		}
		bh, err := cl.GetLatestBlockhash(ctx, tt.cm)
		if err != nil || bh.Value.Blockhash != c.Ledger.idx.blockhashOf(tt.wantHeight) || bh.Value.LastValidBlockHeight != tt.wantHeight+150 || bh.Context.Slot != tt.wantHeight {
			t.Errorf("GetLatestBlockhash(%q) = %+v, %v", tt.cm, bh, err)
		}
	}
}

func TestAccountReads(t *testing.T) {
	f := newTokenFixture(t)
	cl := rpcClient(t, f.c)
	ctx := context.Background()
	missing := newKey("missing").PublicKey()

	bal, err := cl.GetBalance(ctx, f.alice.PublicKey(), rpc.CommitmentConfirmed)
	if err != nil || bal.Value != f.aliceLamportsStart {
		t.Fatalf("GetBalance = %+v, %v", bal, err)
	}
	info, err := cl.GetAccountInfo(ctx, f.mint)
	if err != nil {
		t.Fatalf("GetAccountInfo: %v", err)
	}
	want, _ := f.c.State.Account(f.mint)
	if v := info.Value; v.Owner != solana.TokenProgramID || v.Lamports != svm.MintRent || !bytes.Equal(v.Data.GetBinary(), want.Data) || v.Space != svm.MintSize || v.Data.GetBinary()[44] != 6 {
		t.Fatalf("mint account = %+v", v)
	}
	if _, err := cl.GetAccountInfo(ctx, missing); !errors.Is(err, rpc.ErrNotFound) {
		t.Fatalf("missing account: err = %v, want ErrNotFound", err)
	}
	b58, err := cl.GetAccountInfoWithOpts(ctx, f.mint, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase58})
	if err != nil || !bytes.Equal(b58.Value.Data.GetBinary(), want.Data) {
		t.Fatalf("base58 read = %v, %v", b58, err)
	}
	off, n := uint64(36), uint64(8)
	sliced, err := cl.GetAccountInfoWithOpts(ctx, f.mint, &rpc.GetAccountInfoOpts{DataSlice: &rpc.DataSlice{Offset: &off, Length: &n}})
	if err != nil || !bytes.Equal(sliced.Value.Data.GetBinary(), want.Data[36:44]) || sliced.Value.Space != svm.MintSize {
		t.Fatalf("sliced read = %v, %v", sliced, err)
	}
	_, err = cl.GetAccountInfoWithOpts(ctx, f.mint, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingJSONParsed})
	if rerr := rpcErr(t, err); rerr.Code != -32602 || !strings.Contains(rerr.Message, "base64") {
		t.Fatalf("jsonParsed: %d %q, want -32602 naming base64", rerr.Code, rerr.Message)
	}
	multi, err := cl.GetMultipleAccounts(ctx, f.aliceATA, missing, f.alice.PublicKey())
	if err != nil || len(multi.Value) != 3 || multi.Value[1] != nil || multi.Value[2].Lamports != f.aliceLamportsStart {
		t.Fatalf("GetMultipleAccounts = %+v, %v", multi, err)
	}
	if ta, ok := svm.DecodeTokenAccount(multi.Value[0].Data.GetBinary()); !ok || ta.Amount != 1000 || ta.Owner != f.alice.PublicKey() {
		t.Fatalf("token account = %+v", ta)
	}
}

func TestSignatureStatusHistory(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice := newKey("alice")
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	sig, err := c.SendTransaction(raw(t, transfer(t, alice, newKey("bob").PublicKey(), 1, latest(c))))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	unknown := solana.Signature{9}
	advanceSlots(clk, 301)
	recent, err := cl.GetSignatureStatuses(ctx, false, sig, unknown)
	if err != nil || len(recent.Value) != 2 || recent.Value[0] != nil || recent.Value[1] != nil {
		t.Fatalf("without history = %+v, %v; want [null, null]", recent, err)
	}
	hist, err := cl.GetSignatureStatuses(ctx, true, sig, unknown)
	if err != nil || hist.Value[0] == nil || hist.Value[0].ConfirmationStatus != rpc.ConfirmationStatusFinalized || hist.Value[0].Confirmations != nil || hist.Value[1] != nil {
		t.Fatalf("with history = %+v, %v", hist.Value, err)
	}
}

func TestGetTransaction(t *testing.T) {
	f := newTokenFixture(t)
	clk := f.c.Ledger.clock.(*ManualClock)
	cl := rpcClient(t, f.c)
	ctx := context.Background()
	tx := signTx(t, []solana.Instruction{
		system.NewTransferInstruction(1000, f.alice.PublicKey(), f.bob.PublicKey()).Build(),
	}, latest(f.c), f.alice)
	sig, err := f.c.SendTransaction(raw(t, tx))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if got, err := cl.GetTransaction(ctx, sig, nil); !errors.Is(err, rpc.ErrNotFound) {
		t.Fatalf("before finalization: %+v, %v; want not found", got, err)
	}
	if _, err := cl.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentProcessed}); rpcErr(t, err).Code != -32602 {
		t.Fatalf("processed commitment accepted")
	}
	advanceSlots(clk, 32)
	for _, enc := range []solana.EncodingType{"", solana.EncodingBase64, solana.EncodingBase58} {
		got, err := cl.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Encoding: enc})
		if err != nil {
			t.Fatalf("GetTransaction(%q): %v", enc, err)
		}
		decoded, err := got.Transaction.GetTransaction()
		if err != nil || decoded.Signatures[0] != sig || decoded.Message.AccountKeys[0] != f.alice.PublicKey() {
			t.Fatalf("GetTransaction(%q) transaction = %+v, %v", enc, decoded, err)
		}
		m := got.Meta
		if got.Slot != 0 || m.Fee != 5000 || m.Err != nil || m.PreBalances[0] != f.aliceLamportsStart || m.PostBalances[0] != f.aliceLamportsStart-6000 || got.Version != rpc.LegacyTransactionVersion || *m.ComputeUnitsConsumed != svm.SystemUnits {
			t.Fatalf("GetTransaction(%q) = slot %d meta %+v version %v", enc, got.Slot, m, got.Version)
		}
	}
}

func TestGetTransactionTokenBalances(t *testing.T) {
	f := newTokenFixture(t)
	cl := rpcClient(t, f.c)
	tx := signTx(t, []solana.Instruction{token.NewTransferInstruction(400, f.aliceATA, f.bobATA, f.alice.PublicKey(), nil).Build()}, latest(f.c), f.alice)
	sig, err := f.c.SendTransaction(raw(t, tx))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	advanceSlots(f.c.Ledger.clock.(*ManualClock), 1)
	got, err := cl.GetTransaction(context.Background(), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("GetTransaction: %v", err)
	}
	pre, post := got.Meta.PreTokenBalances, got.Meta.PostTokenBalances
	if len(pre) != 2 || len(post) != 2 {
		t.Fatalf("token balances pre %+v post %+v, want two each", pre, post)
	}
	for _, b := range post {
		want := map[solana.PublicKey]string{f.alice.PublicKey(): "600", f.bob.PublicKey(): "400"}[*b.Owner]
		ui := map[string]string{"600": "0.0006", "400": "0.0004"}[want]
		if b.Mint != f.mint || b.UiTokenAmount.Amount != want || b.UiTokenAmount.Decimals != 6 || b.UiTokenAmount.UiAmountString != ui || *b.ProgramId != solana.TokenProgramID {
			t.Errorf("post token balance %+v (%+v), want amount %s", b, b.UiTokenAmount, want)
		}
	}
}

func TestResponsesAreDeterministic(t *testing.T) {
	bodies := func() []string {
		c, clk := newChain(t, Options{Seed: 5})
		url, hc := serve(t, c.RPC().Handler())
		alice := newKey("alice")
		mustFund(t, c, alice.PublicKey(), 1_000_000)
		sig, err := c.SendTransaction(raw(t, transfer(t, alice, newKey("bob").PublicKey(), 9, latest(c))))
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		advanceSlots(clk, 40)
		var out []string
		for _, req := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"getLatestBlockhash"}`,
			`{"jsonrpc":"2.0","id":2,"method":"getSignatureStatuses","params":[["` + sig.String() + `"]]}`,
			`{"jsonrpc":"2.0","id":3,"method":"getTransaction","params":["` + sig.String() + `",{"encoding":"json"}]}`,
			`{"jsonrpc":"2.0","id":4,"method":"getRecentPrioritizationFees","params":[]}`,
		} {
			resp, err := hc.Post(url, "application/json", strings.NewReader(req))
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, string(b))
		}
		return out
	}
	a, b := bodies(), bodies()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("response %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
	if !strings.Contains(a[2], `"blockTime":1772366400`) || !strings.Contains(a[2], `"status":{"Ok":null}`) {
		t.Fatalf("getTransaction body %s", a[2])
	}
}

func TestProtocolErrors(t *testing.T) {
	c, _ := newChain(t, Options{})
	url, hc := serve(t, c.RPC().Handler())
	tests := []struct {
		name       string
		method     string
		body       string
		wantStatus int
		wantInBody string
	}{
		{"unknown method", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"getBlock","params":[]}`, 200, `"code":-32601`},
		{"malformed JSON", http.MethodPost, `{"jsonrpc":`, 200, `"code":-32700`},
		{"batch", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"getSlot"}]`, 200, `"code":-32600`},
		{"missing version", http.MethodPost, `{"id":1,"method":"getSlot"}`, 200, `"code":-32600`},
		{"params object", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"getSlot","params":{}}`, 200, `"code":-32602`},
		{"GET", http.MethodGet, ``, 405, "only POST"},
		{"id echoed", http.MethodPost, `{"jsonrpc":"2.0","id":"abc","method":"getHealth"}`, 200, `{"jsonrpc":"2.0","result":"ok","id":"abc"}`},
		{"rent exemption", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"getMinimumBalanceForRentExemption","params":[165]}`, 200, `"result":2039280`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, url, strings.NewReader(tt.body))
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(string(body), tt.wantInBody) {
				t.Fatalf("got %d %s, want %d containing %s", resp.StatusCode, body, tt.wantStatus, tt.wantInBody)
			}
		})
	}
}
