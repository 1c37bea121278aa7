package action

import (
	"context"
	"errors"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// built is one transaction as the market returned it.
type built struct {
	// Exactly one of api and wire is set: api for transaction objects,
	// wire for the base64 entries of an earn response (txBase64s).
	api  *market.Transaction
	wire string
}

// journalForm is what the journal keeps of t: the message of a transaction
// object, or the base64 entry.
func (t built) journalForm() string {
	if t.api != nil {
		return t.api.Message
	}
	return t.wire
}

// decode parses t for the guard.
func (t built) decode() (*signer.Tx, error) {
	if t.api == nil {
		return signer.DecodeWire(t.wire)
	}
	sigs := make([]signer.APISignature, len(t.api.Signatures))
	for i, s := range t.api.Signatures {
		sigs[i] = signer.APISignature{PublicKey: s.PublicKey, Signature: s.Signature}
	}
	return signer.DecodeAPITransaction(t.api.Message, sigs)
}

// build asks the market to build req's transactions, in the order they must
// land.
func build(ctx context.Context, m Builder, key market.IdempotencyKey, req policies.Request) ([]built, error) {
	switch {
	case req.BuildLoan != nil:
		resp, err := m.BuildLoan(ctx, key, *req.BuildLoan)
		if err != nil {
			return nil, err
		}
		return objects(resp.Transactions), nil
	case req.TransferPosition != nil:
		return one(m.TransferPosition(ctx, key, *req.TransferPosition))
	case req.ClaimFees != nil:
		return one(m.ClaimFees(ctx, key, *req.ClaimFees))
	case req.WithdrawStrategy != nil:
		return one(m.WithdrawFromStrategy(ctx, key, *req.WithdrawStrategy))
	case req.StrategyUpdate != nil:
		txs, err := m.UpdateStrategy(ctx, key, *req.StrategyUpdate)
		if err != nil {
			return nil, err
		}
		return objects(txs), nil
	case req.WithdrawClaim != nil:
		resp, err := m.ClaimEarnWithdrawal(ctx, key, *req.WithdrawClaim)
		if err != nil {
			return nil, err
		}
		out := make([]built, len(resp.TxBase64s))
		for i, w := range resp.TxBase64s {
			out[i] = built{wire: w}
		}
		return out, nil
	}
	return nil, errors.New("the plan carries no market request to build")
}

func objects(txs []market.Transaction) []built {
	out := make([]built, len(txs))
	for i := range txs {
		out[i] = built{api: &txs[i]}
	}
	return out
}

func one(tx *market.Transaction, err error) ([]built, error) {
	if err != nil {
		return nil, err
	}
	return []built{{api: tx}}, nil
}
