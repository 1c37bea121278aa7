package chainsim

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// TestClockSysvarIsAnAccount: getMultipleAccounts serves the Clock sysvar as
// a validator does, 40 bytes owned by the Sysvar program whose slot and
// unix_timestamp are those of the block the read sees.
func TestClockSysvarIsAnAccount(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	advanceSlots(clk, 25)
	res, err := cl.GetMultipleAccountsWithOpts(context.Background(), []solana.PublicKey{svm.ClockSysvarID},
		&rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil || len(res.Value) != 1 || res.Value[0] == nil {
		t.Fatalf("getMultipleAccounts(Clock) = %+v, %v", res, err)
	}
	a := res.Value[0]
	data := a.Data.GetBinary()
	if a.Owner != solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111") || len(data) != 40 {
		t.Fatalf("Clock: owner %s, %d bytes; want the Sysvar program's 40", a.Owner, len(data))
	}
	slot := binary.LittleEndian.Uint64(data[0:])
	unix := int64(binary.LittleEndian.Uint64(data[32:]))
	if slot != res.Context.Slot {
		t.Errorf("Clock slot %d, the read's context slot %d", slot, res.Context.Slot)
	}
	if want := c.Ledger.viewAt(rpc.CommitmentConfirmed).Time.Unix(); unix != want {
		t.Errorf("Clock unix_timestamp %d, want the block's time %d", unix, want)
	}
}
