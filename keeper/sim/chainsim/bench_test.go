package chainsim

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
)

// transfers returns n distinct signed transfers from a funded payer.
func transfers(b *testing.B, c *Chain, n int) [][]byte {
	b.Helper()
	payer, to := newKey("bench-payer"), newKey("bench-to").PublicKey()
	mustFund(b, c, payer.PublicKey(), 1<<60)
	bh := latest(c)
	out := make([][]byte, n)
	for i := range out {
		ix := system.NewTransferInstruction(uint64(i)+1, payer.PublicKey(), to).Build()
		out[i] = raw(b, signTx(b, []solana.Instruction{ix}, bh, payer))
	}
	return out
}

// BenchmarkSendTransactionRPC measures sendTransaction of simple
// transfers through solana-go's client over loopback HTTP, with preflight.
func BenchmarkSendTransactionRPC(b *testing.B) {
	c, _ := newChain(b, Options{})
	cl := rpcClient(b, c)
	txs := transfers(b, c, b.N)
	opts := rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cl.SendRawTransactionWithOpts(context.Background(), txs[i], opts); err != nil {
			b.Fatalf("send %d: %v", i, err)
		}
	}
}

// BenchmarkSendTransactionChain measures Chain.SendTransaction of simple
// transfers (decode, signature check, execution, record), without HTTP.
func BenchmarkSendTransactionChain(b *testing.B) {
	c, _ := newChain(b, Options{})
	txs := transfers(b, c, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.SendTransaction(txs[i]); err != nil {
			b.Fatalf("send %d: %v", i, err)
		}
	}
}
