package explorer

import (
	"strings"
	"testing"
)

const sig = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"

func TestLinks(t *testing.T) {
	for _, c := range []struct {
		name, cluster, rpc, want string
	}{
		{Solscan, "", "", "https://solscan.io/tx/" + sig},
		{Solscan, Devnet, "", "https://solscan.io/tx/" + sig + "?cluster=devnet"},
		{Solana, Mainnet, "", "https://explorer.solana.com/tx/" + sig},
		{Solana, Testnet, "", "https://explorer.solana.com/tx/" + sig + "?cluster=testnet"},
		{Solana, Custom, "http://127.0.0.1:8899", "https://explorer.solana.com/tx/" + sig + "?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899"},
		{SolanaFM, Devnet, "", "https://solana.fm/tx/" + sig + "?cluster=devnet-solana"},
		{SolanaFM, Custom, "http://127.0.0.1:8899", "https://solana.fm/tx/" + sig + "?cluster=custom-127.0.0.1:8899"},
		{"https://x.example/{cluster}/tx/{signature}?a=100%", Devnet, "", "https://x.example/devnet/tx/" + sig + "?a=100%"},
	} {
		e, err := New(c.name, c.cluster, c.rpc)
		if err != nil {
			t.Errorf("New(%q, %q): %v", c.name, c.cluster, err)
			continue
		}
		if got := e.Tx(sig); got != c.want {
			t.Errorf("New(%q, %q).Tx = %s, want %s", c.name, c.cluster, got, c.want)
		}
	}
	e, _ := New(Solscan, Devnet, "")
	if got := e.Address("So11111111111111111111111111111111111111112"); got != "https://solscan.io/address/So11111111111111111111111111111111111111112?cluster=devnet" {
		t.Errorf("Address = %s", got)
	}
	if (Explorer{}).Tx(sig) != "" || (Explorer{}).Txs([]string{sig}) != nil {
		t.Error("the zero Explorer made a link")
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ name, cluster, rpc, want string }{
		{Solscan, Custom, "http://127.0.0.1:8899", "cannot show a custom cluster"},
		{Solana, Custom, "", "needs the RPC URL"},
		{Solana, "localnet", "", "unknown cluster"},
		{"etherscan", "", "", "neither solscan"},
		{"ftp://x/{signature}", "", "", "not an http(s) URL"},
	} {
		if _, err := New(c.name, c.cluster, c.rpc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %q, %q) = %v, want an error saying %q", c.name, c.cluster, c.rpc, err, c.want)
		}
	}
}
