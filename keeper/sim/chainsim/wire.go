package chainsim

import (
	"encoding/base64"
	"fmt"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/mr-tron/base58"
)

// apiVersion is the node version the simulator reports.
const apiVersion = "2.2.0"

// wireContext is the context of a response with a value.
type wireContext struct {
	APIVersion string `json:"apiVersion"`
	Slot       uint64 `json:"slot"`
}

// withContext is a response value with its context.
type withContext struct {
	Context wireContext `json:"context"`
	Value   any         `json:"value"`
}

// contextValue wraps v with the context of slot.
func contextValue(slot uint64, v any) withContext {
	return withContext{Context: wireContext{APIVersion: apiVersion, Slot: slot}, Value: v}
}

// wireAccount is an account as the RPC encodes it.
type wireAccount struct {
	Data       [2]string `json:"data"`
	Executable bool      `json:"executable"`
	Lamports   uint64    `json:"lamports"`
	Owner      string    `json:"owner"`
	RentEpoch  uint64    `json:"rentEpoch"`
	Space      uint64    `json:"space"`
}

// dataSlice is the dataSlice option of account reads.
type dataSlice struct {
	Offset uint64 `json:"offset"`
	Length uint64 `json:"length"`
}

// checkAccountEncoding refuses encodings the simulator does not produce.
func checkAccountEncoding(enc string) *jsonrpc.Error {
	switch enc {
	case "base64", "base58":
		return nil
	}
	return jsonrpc.InvalidParams("chainsim encodes account data as base64 or base58 only, not %q", enc)
}

// encodeAccount returns the wire form of a (nil for no account).
func encodeAccount(a *svm.Account, enc string, slice *dataSlice) (*wireAccount, *jsonrpc.Error) {
	if a == nil {
		return nil, nil
	}
	data := sliceData(a.Data, slice)
	w := &wireAccount{
		Executable: a.Executable,
		Lamports:   a.Lamports,
		Owner:      a.Owner.String(),
		RentEpoch:  math.MaxUint64,
		Space:      uint64(len(a.Data)),
	}
	switch enc {
	case "base58":
		if len(data) > 128 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding."}
		}
		w.Data = [2]string{base58.Encode(data), "base58"}
	default:
		w.Data = [2]string{base64.StdEncoding.EncodeToString(data), "base64"}
	}
	return w, nil
}

// parseCommitment normalises a commitment name; "" gives def.
func parseCommitment(s string, def rpc.CommitmentType) (rpc.CommitmentType, *jsonrpc.Error) {
	switch s {
	case "":
		return def, nil
	case "processed", "recent":
		return rpc.CommitmentProcessed, nil
	case "confirmed", "single", "singleGossip":
		return rpc.CommitmentConfirmed, nil
	case "finalized", "max", "root":
		return rpc.CommitmentFinalized, nil
	}
	return "", jsonrpc.InvalidParams("unknown commitment %q", s)
}

// parseTxString decodes a wire transaction sent as base58 or base64 and
// parses it.
func parseTxString(s, enc string) (*svm.Txn, *jsonrpc.Error) {
	raw, rerr := decodeTxString(s, enc)
	if rerr != nil {
		return nil, rerr
	}
	t, err := svm.ParseTx(raw)
	if err != nil {
		return nil, invalidTx(err)
	}
	return t, nil
}

// decodeTxString decodes a wire transaction sent as base58 or base64.
func decodeTxString(s, enc string) ([]byte, *jsonrpc.Error) {
	var (
		raw []byte
		err error
	)
	switch enc {
	case "", "base58":
		if len(s) > 1683 {
			return nil, jsonrpc.InvalidParams("base58 encoded transaction too large: %d bytes (max: encoded/raw 1683/%d)", len(s), svm.MaxTransactionSize)
		}
		raw, err = base58.Decode(s)
	case "base64":
		if len(s) > 1644 {
			return nil, jsonrpc.InvalidParams("base64 encoded transaction too large: %d bytes (max: encoded/raw 1644/%d)", len(s), svm.MaxTransactionSize)
		}
		raw, err = base64.StdEncoding.DecodeString(s)
	default:
		return nil, jsonrpc.InvalidParams("unsupported transaction encoding %q, use base58 or base64", enc)
	}
	if err != nil {
		return nil, jsonrpc.InvalidParams("invalid %s transaction: %v", enc, err)
	}
	return raw, nil
}

// invalidTx maps a decoding, signature or bundle error to a JSON-RPC error.
func invalidTx(err error) *jsonrpc.Error {
	if terr, ok := asTxError(err); ok && terr.Is(svm.ErrSignatureFailure) {
		return &jsonrpc.Error{Code: jsonrpc.CodeSigVerifyFailure, Message: "Transaction signature verification failure"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

// wireStatus is a signature status as the RPC encodes it.
type wireStatus struct {
	Slot               uint64         `json:"slot"`
	Confirmations      *uint64        `json:"confirmations"`
	Err                any            `json:"err"`
	ConfirmationStatus string         `json:"confirmationStatus"`
	Status             map[string]any `json:"status"`
}

// encodeStatus returns the wire form of a status.
func encodeStatus(st SignatureStatus) *wireStatus {
	w := &wireStatus{Slot: st.Slot, Err: svm.WireErr(st.Err), ConfirmationStatus: string(st.ConfirmationStatus), Status: okOrErr(st.Err)}
	if st.ConfirmationStatus != rpc.ConfirmationStatusFinalized {
		n := st.Confirmations
		w.Confirmations = &n
	}
	return w
}

// okOrErr returns the legacy status object {"Ok": null} or {"Err": err}.
func okOrErr(e *svm.TxError) map[string]any {
	if e == nil {
		return map[string]any{"Ok": nil}
	}
	return map[string]any{"Err": e.Wire()}
}

// keyStrings returns base58 keys, never nil.
func keyStrings(keys []solana.PublicKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
}

// simFailureData is the data of a -32002 preflight failure, and the base of
// a simulateTransaction result.
func simFailureData(r SimResult) map[string]any {
	return map[string]any{
		"err":                  svm.WireErr(r.Err),
		"logs":                 nonNilLogs(r.Logs),
		"accounts":             nil,
		"unitsConsumed":        r.UnitsConsumed,
		"returnData":           nil,
		"innerInstructions":    nil,
		"replacementBlockhash": nil,
	}
}

// nonNilLogs returns logs, or an empty list.
func nonNilLogs(logs []string) []string {
	if logs == nil {
		return []string{}
	}
	return logs
}

// preflightMessage is the message of a -32002 preflight failure.
func preflightMessage(e *svm.TxError) string {
	return fmt.Sprintf("Transaction simulation failed: %s", e.Error())
}

// legacyAccount is an account in the binary encoding of accountSubscribe:
// the data as a bare base58 string.
type legacyAccount struct {
	Data       string `json:"data"`
	Executable bool   `json:"executable"`
	Lamports   uint64 `json:"lamports"`
	Owner      string `json:"owner"`
	RentEpoch  uint64 `json:"rentEpoch"`
	Space      uint64 `json:"space"`
}

// encodeSubAccount returns the wire form of an account notification's
// value in enc: base64, or base58 either as [data, "base58"] or as the bare
// string of the legacy binary encoding. Unlike a read, a notification has
// no 128-byte limit on base58 data.
func encodeSubAccount(a *svm.Account, enc string, slice *dataSlice) (any, *jsonrpc.Error) {
	w, rerr := encodeAccount(a, "base64", slice)
	if rerr != nil || enc == "base64" {
		return w, rerr
	}
	b58 := base58.Encode(sliceData(a.Data, slice))
	if enc == "base58" {
		w.Data = [2]string{b58, "base58"}
		return w, nil
	}
	return legacyAccount{Data: b58, Executable: w.Executable, Lamports: w.Lamports, Owner: w.Owner, RentEpoch: w.RentEpoch, Space: w.Space}, nil
}

// sliceData returns the part of data a dataSlice selects (all of it for
// nil).
func sliceData(data []byte, slice *dataSlice) []byte {
	if slice == nil {
		return data
	}
	start := min(slice.Offset, uint64(len(data)))
	end := start + min(slice.Length, uint64(len(data))-start)
	return data[start:end]
}
