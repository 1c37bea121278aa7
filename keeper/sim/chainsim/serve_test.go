package chainsim

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

func TestServeRPCAndJitoOnTwoPorts(t *testing.T) {
	c, _ := newChain(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	type served struct {
		url  string
		done chan error
	}
	start := func(s *Server) served {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		out := served{url: "http://" + ln.Addr().String(), done: make(chan error, 1)}
		go func() { out.done <- s.Serve(ctx, ln) }()
		return out
	}
	rpcSrv, jitoSrv := start(c.RPC()), start(c.Jito())
	hc := &http.Client{Transport: &http.Transport{}}
	cl := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(rpcSrv.url, &jsonrpc.RPCClientOpts{HTTPClient: hc}))
	if h, err := cl.GetHealth(ctx); err != nil || h != "ok" {
		t.Fatalf("RPC getHealth = %q, %v", h, err)
	}
	jc := jsonrpc.NewClientWithOpts(jitoSrv.url+"/api/v1/bundles", &jsonrpc.RPCClientOpts{HTTPClient: hc})
	var tips []string
	if err := jc.CallForInto(ctx, &tips, "getTipAccounts", []any{}); err != nil || len(tips) != 8 {
		t.Fatalf("Jito getTipAccounts = %v, %v", tips, err)
	}
	var slot uint64
	if err := jc.CallForInto(ctx, &slot, "getSlot", []any{}); rpcErr(t, err).Code != -32601 {
		t.Fatalf("the block engine answered an RPC method")
	}
	alice := newKey("alice")
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	jitoTx := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(jitoSrv.url+"/api/v1/transactions", &jsonrpc.RPCClientOpts{HTTPClient: hc}))
	if _, err := jitoTx.SendTransaction(ctx, transfer(t, alice, newKey("bob").PublicKey(), 77, latest(c))); err != nil || c.State.Balance(newKey("bob").PublicKey()) != 77 {
		t.Fatalf("Jito sendTransaction: %v", err)
	}
	resp, err := hc.Post(jitoSrv.url+"/", "application/json", nil)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("Jito at / = %d, want 404", resp.StatusCode)
	}
	hc.CloseIdleConnections()
	cancel()
	for _, s := range []served{rpcSrv, jitoSrv} {
		if err := <-s.done; err != nil {
			t.Fatalf("Serve returned %v, want nil after cancel", err)
		}
	}
}
