package market

import (
	"testing"
)

// FuzzDecodeAnswers feeds arbitrary bodies to the decoding of every read's answer: nothing may
// panic, a null body is never accepted, and an accepted listing is never nil (absent and null
// listings are errors; only a present list, possibly empty, is an answer).
func FuzzDecodeAnswers(f *testing.F) {
	for _, body := range []string{"null", "{}", "[]", `{"items":[]}`, `{"items":[null]}`, `{"items":{}}`,
		`{"requests":[{"requestId":"R","requestedAmount":"1","filledAmount":1}]}`, `{"items":[{"id":"R"}]}`,
		`{"openWithdrawalRequests":[{"onChainRequestAddr":"A"}]}`,
		`{"loanInfos":[{"loan":{"address":"L"},"ledgers":[{"lastInterestUpdateTime":5}]}],"snapshotTs":1}`,
		`[{"address":"V","vaultStrategy":{}}]`, `{"loops":[{"identifier":"x","wAvgApy":"0.1"}]}`} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var loans LoansPage
		if DecodeAnswer(body, &loans) == nil && loans.Items == nil {
			t.Fatalf("loans answer %q accepted without a list", body)
		}
		var vaults VaultsPage
		if DecodeAnswer(body, &vaults) == nil && vaults.Items == nil {
			t.Fatalf("vaults answer %q accepted without a list", body)
		}
		var queue WithdrawalQueue
		if DecodeAnswer(body, &queue) == nil && queue.Requests == nil {
			t.Fatalf("queue answer %q accepted without a list", body)
		}
		named := WithdrawalQueueAnswer{Fields: WithdrawalQueueFields{Requests: "items", RequestID: "id"}}
		if DecodeAnswer(body, &named) == nil && named.Queue.Requests == nil {
			t.Fatalf("renamed queue answer %q accepted without a list", body)
		}
		var pos EarnPosition
		if DecodeAnswer(body, &pos) == nil && pos.OpenWithdrawalRequests == nil {
			t.Fatalf("earn position %q accepted without its requests", body)
		}
		var loops LoopList
		_ = DecodeAnswer(body, &loops)
		var quotes StrictList[Quote]
		_ = DecodeAnswer(body, &quotes)
		var deposits StrictList[VaultDeposits]
		_ = DecodeAnswer(body, &deposits)
		var holders StrictList[CollateralHolder]
		_ = DecodeAnswer(body, &holders)
		var earnTx EarnTxResponse
		_ = DecodeAnswer(body, &earnTx)
	})
}
