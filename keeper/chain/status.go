package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// maxStatusBatch is getSignatureStatuses' limit on signatures per call.
const maxStatusBatch = 256

// Status is what the chain knows of one signature.
type Status struct {
	Signature solana.Signature
	// Found is false when the node knows nothing of the signature.
	Found bool
	// Slot the transaction was processed in; zero when not found.
	Slot uint64
	// Confirmation is processed, confirmed or finalized; empty when not found.
	Confirmation rpc.ConfirmationStatusType
	// Err is the chain's TransactionError (decoded JSON) for a transaction
	// that landed and failed; nil when it succeeded or was not found.
	Err any
}

// Reached reports whether the transaction was found at commitment c or a
// stronger one.
func (s Status) Reached(c rpc.CommitmentType) bool {
	return s.Found && rank(string(s.Confirmation)) >= rank(string(c))
}

// rank orders commitment levels.
func rank(c string) int {
	switch c {
	case string(rpc.CommitmentProcessed):
		return 1
	case string(rpc.CommitmentConfirmed):
		return 2
	case string(rpc.CommitmentFinalized):
		return 3
	}
	return 0
}

// confirmer tells what became of transactions: their signature statuses,
// whether their blockhashes expired, and the verdict on earlier attempts.
type confirmer struct {
	reads *Reads
	grace time.Duration // Options.BlockhashGrace
	log   *slog.Logger
	gone  goneMemory // the earliest slot each blockhash was seen gone
}

// statuses asks getSignatureStatuses in batches; history also searches
// beyond the node's recent status cache.
func (c *confirmer) statuses(ctx context.Context, sigs []solana.Signature, history bool) ([]Status, error) {
	st, _, err := c.statusesAt(ctx, sigs, history)
	return st, err
}

// statusesAt is statuses, with the lowest context slot of the answers: the
// last slot every answering node had seen. A node behind a load balancer
// may answer from far behind the one that answered another call.
func (c *confirmer) statusesAt(ctx context.Context, sigs []solana.Signature, history bool) ([]Status, uint64, error) {
	out := make([]Status, 0, len(sigs))
	seen := uint64(math.MaxUint64)
	for start := 0; start < len(sigs); start += maxStatusBatch {
		batch := sigs[start:min(start+maxStatusBatch, len(sigs))]
		res, err := callFor(ctx, c.reads.pool, "getSignatureStatuses", func(ctx context.Context, ep *endpoint) (*rpc.GetSignatureStatusesResult, error) {
			return ep.rpc.GetSignatureStatuses(ctx, history, batch...)
		})
		if err != nil {
			return nil, 0, err
		}
		if len(res.Value) != len(batch) {
			return nil, 0, fmt.Errorf("getSignatureStatuses: %d statuses for %d signatures", len(res.Value), len(batch))
		}
		seen = min(seen, res.Context.Slot)
		for i, sig := range batch {
			st := toStatus(sig, res.Value[i])
			if st.Found && st.Reached(c.reads.commitment) {
				c.reads.saw(st.Slot) // reads at the commitment reach this slot too
			}
			out = append(out, st)
		}
	}
	if len(sigs) == 0 {
		seen = 0
	}
	return out, seen, nil
}

// toStatus converts one getSignatureStatuses entry (nil: unknown). A node
// that omits confirmationStatus reports confirmations null for rooted
// transactions.
func toStatus(sig solana.Signature, v *rpc.SignatureStatusesResult) Status {
	if v == nil {
		return Status{Signature: sig}
	}
	conf := v.ConfirmationStatus
	if conf == "" {
		conf = rpc.ConfirmationStatusProcessed
		if v.Confirmations == nil {
			conf = rpc.ConfirmationStatusFinalized
		}
	}
	return Status{Signature: sig, Found: true, Slot: v.Slot, Confirmation: conf, Err: normalize(v.Err)}
}
