package chain

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

func TestSendAndConfirmOne(t *testing.T) {
	notFound := &fakeRPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found", Data: map[string]any{"err": "BlockhashNotFound"}}
	tests := []struct {
		name      string
		setup     func(fc *fakeChain, s Signed)
		want      Outcome
		wantState TxState
		check     func(t *testing.T, fc *fakeChain, s Signed, r TxResult)
	}{
		{
			name: "lands", want: OutcomeLanded, wantState: TxLanded,
			check: func(t *testing.T, fc *fakeChain, s Signed, r TxResult) {
				if n := fc.sendCount(s.Signature); n != 1 {
					t.Errorf("sent %d times, want 1 (confirmed before the first rebroadcast)", n)
				}
				if r.Slot != 1 {
					t.Errorf("slot %d, want 1", r.Slot)
				}
			},
		},
		{
			name:  "dropped by the node, rebroadcast, lands",
			setup: func(fc *fakeChain, s Signed) { fc.dropSends[s.Signature] = 3 },
			want:  OutcomeLanded, wantState: TxLanded,
			check: func(t *testing.T, fc *fakeChain, s Signed, _ TxResult) {
				if n := fc.sendCount(s.Signature); n != 4 {
					t.Errorf("sent %d times, want 4 (3 dropped)", n)
				}
				checkSendOpts(t, fc)
			},
		},
		{
			name:  "already processed counts as sent",
			setup: func(fc *fakeChain, s Signed) { fc.landed[s.Signature] = &landing{slot: 0} },
			want:  OutcomeLanded, wantState: TxLanded,
		},
		{
			name: "first blockhash not found is not final",
			setup: func(fc *fakeChain, s Signed) {
				fc.sendReply[s.Signature] = []*fakeRPCError{notFound}
				fc.lagUntil[s.Blockhash] = fc.start.Add(3 * time.Second)
			},
			want: OutcomeLanded, wantState: TxLanded,
		},
		{
			name: "lands and fails",
			setup: func(fc *fakeChain, s Signed) {
				fc.failing[s.Signature] = map[string]any{"InstructionError": []any{0, map[string]any{"Custom": 6001}}}
			},
			want: OutcomeFailed, wantState: TxFailed,
			check: func(t *testing.T, _ *fakeChain, _ Signed, r TxResult) {
				var te *TxError
				if !errors.As(r.Err, &te) || errJSON(te.Err) != `{"InstructionError":[0,{"Custom":6001}]}` {
					t.Errorf("err = %v, want the chain's InstructionError", r.Err)
				}
				if Retryable(r.Err) {
					t.Error("a landed failure must be terminal")
				}
			},
		},
		{
			name: "rejected by the node: watched until expiry, reported with the rejection",
			setup: func(fc *fakeChain, s Signed) {
				fc.sendReply[s.Signature] = []*fakeRPCError{{Code: -32602, Message: "invalid transaction: bad"}}
			},
			want: OutcomeExpired, wantState: TxExpired,
			check: func(t *testing.T, fc *fakeChain, s Signed, r TxResult) {
				var re *RPCError
				if !errors.As(r.Err, &re) || re.Code != -32602 {
					t.Errorf("err = %v, want the node's rejection", r.Err)
				}
				if n := fc.sendCount(s.Signature); n != 1 {
					t.Errorf("sent %d times, want 1 (no rebroadcast after a rejection)", n)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fc := newFakeChain(20)
				c, logs := newMemClient(t, fc, nil)
				s := transferTx(t, newKey(t), fc.newBlockhash(), 1)
				if tt.setup != nil {
					tt.setup(fc, s)
				}
				defer func() {
					if got := logs.String(); contains(got, secretKey) || (tt.wantState != TxExpired && contains(got, `"level":"ERROR"`)) {
						t.Errorf("logs leak the key or report an error:\n%s", got)
					}
				}()
				res, err := c.SendAndConfirm(withTimeout(t, time.Hour), []Signed{s})
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if res.Outcome != tt.want || res.Route != RouteRPC || len(res.Txs) != 1 || res.Txs[0].State != tt.wantState {
					t.Fatalf("result = %+v, want outcome %v state %v", res, tt.want, tt.wantState)
				}
				if res.Txs[0].Signature != s.Signature {
					t.Errorf("signature %s, want %s", res.Txs[0].Signature, s.Signature)
				}
				if tt.check != nil {
					tt.check(t, fc, s, res.Txs[0])
				}
			})
		})
	}
}

// checkSendOpts asserts every sendTransaction skipped preflight with
// maxRetries 0 and base64 encoding.
func checkSendOpts(t *testing.T, fc *fakeChain) {
	t.Helper()
	for _, c := range fc.callsOf("sendTransaction") {
		o := c.params[1].(map[string]any)
		if o["skipPreflight"] != true || o["maxRetries"] != float64(0) || o["encoding"] != "base64" {
			t.Errorf("send options %v, want skipPreflight, maxRetries 0, base64", o)
		}
	}
}

func TestSendAndConfirmExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(20)
		c, _ := newMemClient(t, fc, nil)
		s := transferTx(t, newKey(t), fc.newBlockhash(), 1)
		fc.dropSends[s.Signature] = 1 << 30
		res, err := c.SendAndConfirm(withTimeout(t, time.Hour), []Signed{s})
		if err != nil {
			t.Fatalf("SendAndConfirm: %v", err)
		}
		if res.Outcome != OutcomeExpired || res.Txs[0].State != TxExpired || res.Txs[0].Err != nil {
			t.Fatalf("result = %+v, want expired", res)
		}
		if fc.isLanded(s.Signature) {
			t.Fatal("reported expired but landed")
		}
		expiredAt := fc.start.Add(21 * fc.slotTime) // height 21 > 0 + lifetime 20
		if now := time.Now(); now.Before(expiredAt) {
			t.Errorf("declared expired at %v, before the blockhash expired at %v", now.Sub(fc.start), expiredAt.Sub(fc.start))
		}
		if n := fc.sendCount(s.Signature); n < 4 {
			t.Errorf("rebroadcast %d times, want one every 2 s until expiry", n)
		}
		assertFinalCheck(t, fc, expiredAt)
	})
}

// assertFinalCheck asserts that, after the blockhash expired, the blockhash
// was asked again and then statuses were searched with history: the last
// word before an expiry verdict is the history search, from a node that has
// seen the slot the hash was gone at.
func assertFinalCheck(t *testing.T, fc *fakeChain, expiredAt time.Time) {
	t.Helper()
	fc.mu.Lock()
	defer fc.mu.Unlock()
	recheck, history := -1, -1
	for i, c := range fc.calls {
		if c.method == "isBlockhashValid" && !c.at.Before(expiredAt) {
			recheck = i
		}
		if c.method == "getSignatureStatuses" && len(c.params) == 2 && recheck >= 0 && i > recheck {
			if o, _ := c.params[1].(map[string]any); o["searchTransactionHistory"] == true {
				history = i
			}
		}
	}
	if recheck < 0 || history < 0 {
		t.Errorf("final check: blockhash re-checked at call %d, history searched afterwards at call %d", recheck, history)
	}
}

func TestSendAndConfirmUnknownBlockhashWaitsGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(20)
		c, _ := newMemClient(t, fc, func(o *Options) { o.BlockhashGrace = 30 * time.Second })
		var foreign solana.Hash
		foreign[0] = 7 // never issued by this node
		s := transferTx(t, newKey(t), foreign, 1)
		start := time.Now()
		res, err := c.SendAndConfirm(withTimeout(t, time.Hour), []Signed{s})
		if err != nil || res.Outcome != OutcomeExpired {
			t.Fatalf("result %+v, err %v; want expired", res, err)
		}
		if waited := time.Since(start); waited < 30*time.Second {
			t.Errorf("expired after %v, before the 30 s grace for a never-seen blockhash", waited)
		}
	})
}

func TestSendAndConfirmSequence(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(fc *fakeChain, txs []Signed)
		want   Outcome
		states []TxState
	}{
		{"all land in order", nil, OutcomeLanded, []TxState{TxLanded, TxLanded, TxLanded}},
		{
			"second fails, third never sent",
			func(fc *fakeChain, txs []Signed) { fc.failing[txs[1].Signature] = "InsufficientFundsForRent" },
			OutcomeFailed, []TxState{TxLanded, TxFailed, TxNotSent},
		},
		{
			"second expires",
			func(fc *fakeChain, txs []Signed) { fc.dropSends[txs[1].Signature] = 1 << 30 },
			OutcomePartial, []TxState{TxLanded, TxExpired, TxNotSent},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fc := newFakeChain(20)
				c, _ := newMemClient(t, fc, nil)
				key, bh := newKey(t), fc.newBlockhash()
				txs := []Signed{transferTx(t, key, bh, 1), transferTx(t, key, bh, 2), transferTx(t, key, bh, 3)}
				if tt.setup != nil {
					tt.setup(fc, txs)
				}
				res, err := c.SendAndConfirm(withTimeout(t, time.Hour), txs)
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if res.Outcome != tt.want {
					t.Errorf("outcome %v, want %v", res.Outcome, tt.want)
				}
				for i, want := range tt.states {
					if res.Txs[i].State != want {
						t.Errorf("tx %d: state %v, want %v", i, res.Txs[i].State, want)
					}
				}
				assertSentAfterConfirmed(t, fc, txs)
			})
		})
	}
}

// assertSentAfterConfirmed asserts that each transaction was first sent
// only after the previous one was confirmed.
func assertSentAfterConfirmed(t *testing.T, fc *fakeChain, txs []Signed) {
	t.Helper()
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for i := 1; i < len(txs); i++ {
		prev := fc.landed[txs[i-1].Signature]
		for _, c := range fc.calls {
			if c.method != "sendTransaction" || decodeParamTx(c.params[0]).Signatures[0] != txs[i].Signature {
				continue
			}
			if prev == nil || c.at.Before(fc.start.Add(time.Duration(prev.slot+1)*fc.slotTime)) {
				t.Errorf("tx %d sent at %v before tx %d was confirmed", i, c.at.Sub(fc.start), i-1)
			}
			break
		}
	}
}

func TestSendAndConfirmContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(150)
		c, _ := newMemClient(t, fc, nil)
		s := transferTx(t, newKey(t), fc.newBlockhash(), 1)
		fc.dropSends[s.Signature] = 1 << 30
		res, err := c.SendAndConfirm(withTimeout(t, 5*time.Second), []Signed{s})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want deadline exceeded", err)
		}
		if res.Outcome != OutcomeUnknown || res.Txs[0].State != TxPending {
			t.Errorf("result %+v, want unknown / pending", res)
		}
	})
}

func TestSendAndConfirmRefusesBadInput(t *testing.T) {
	key := newKey(t)
	var bh solana.Hash
	bh[0] = 1
	good := transferTx(t, key, bh, 1)
	nonceIx := system.NewAdvanceNonceAccountInstruction(solana.NewWallet().PublicKey(), solana.SysVarRecentBlockHashesPubkey, key.PublicKey()).Build()
	nonce := signTx(t, []solana.Instruction{nonceIx, system.NewTransferInstruction(1, key.PublicKey(), solana.NewWallet().PublicKey()).Build()}, key, bh)
	wrongSig := good
	wrongSig.Signature[0] ^= 1
	wrongHash := good
	wrongHash.Blockhash[1] = 9
	trailing := good
	trailing.Raw = append(append([]byte{}, good.Raw...), 0)
	tests := []struct {
		name string
		txs  []Signed
		want string
	}{
		{"none", nil, "no transaction"},
		{"durable nonce", []Signed{nonce}, "durable-nonce"},
		{"signature mismatch", []Signed{wrongSig}, "not the transaction's first signature"},
		{"blockhash mismatch", []Signed{wrongHash}, "not the message's blockhash"},
		{"trailing bytes", []Signed{trailing}, "trailing"},
		{"duplicate", []Signed{good, good}, "same signature"},
	}
	fc := newFakeChain(20)
	c, _ := newMemClient(t, fc, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SendAndConfirm(t.Context(), tt.txs)
			if err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if n := len(fc.callsOf("sendTransaction")); n != 0 {
				t.Errorf("%d sends, want none", n)
			}
		})
	}
	if _, err := c.SendAndConfirm(t.Context(), []Signed{nonce}); !errors.Is(err, ErrDurableNonce) {
		t.Errorf("durable nonce: err = %v, want ErrDurableNonce", err)
	}
}
