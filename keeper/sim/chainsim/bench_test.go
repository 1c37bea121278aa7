package chainsim

import (
	"context"
	"strconv"
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

// BenchmarkSlotOfPastStates measures what keeping the banks of the last 32 blocks costs a slot that
// writes: a chain of 2,000 accounts (more than the default market scenario holds) advanced one slot
// and written once per iteration, which records one shallow copy of the account map.
func BenchmarkSlotOfPastStates(b *testing.B) {
	c, clk := newChain(b, Options{})
	for i := range 2000 {
		mustFund(b, c, newKey("bench-"+strconv.Itoa(i)).PublicKey(), 1_000_000)
	}
	payer := newKey("bench-0").PublicKey()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		advanceSlots(clk, 1)
		mustFund(b, c, payer, 1)
	}
}
