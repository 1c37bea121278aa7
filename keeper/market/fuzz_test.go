package market

import (
	"testing"
)

// FuzzDecodeAnswers feeds arbitrary bodies to the decoding of every read's answer: nothing may
// panic, a null body is never accepted, and an accepted listing is never nil (absent and null
// listings are errors; only a present list, possibly empty, is an answer).
func FuzzDecodeAnswers(f *testing.F) {
	for _, body := range []string{"null", "{}", "[]", `{"items":[]}`, `{"items":[null]}`, `{"items":{}}`,
		`{"requests":[{"requestId":"R","requestedAmount":"1","filledAmount":1}]}`,
		`{"openWithdrawalRequests":[{"onChainRequestAddr":"A"}]}`,
		`{"loanInfos":[{"loan":{"address":"L"},"ledgers":[{"lastInterestUpdateTime":5}]}],"snapshotTs":1}`,
		`[{"address":"V","vaultStrategy":{}}]`, `{"loops":[{"identifier":"x","wAvgApy":"0.1"}]}`} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var loans LoansPage
		if decodeAnswer(body, &loans) == nil && loans.Items == nil {
			t.Fatalf("loans answer %q accepted without a list", body)
		}
		var vaults VaultsPage
		if decodeAnswer(body, &vaults) == nil && vaults.Items == nil {
			t.Fatalf("vaults answer %q accepted without a list", body)
		}
		var queue WithdrawalQueue
		if decodeAnswer(body, &queue) == nil && queue.Requests == nil {
			t.Fatalf("queue answer %q accepted without a list", body)
		}
		var pos EarnPosition
		if decodeAnswer(body, &pos) == nil && pos.OpenWithdrawalRequests == nil {
			t.Fatalf("earn position %q accepted without its requests", body)
		}
		var loops loopList
		_ = decodeAnswer(body, &loops)
		var quotes strictList[Quote]
		_ = decodeAnswer(body, &quotes)
		var deposits strictList[VaultDeposits]
		_ = decodeAnswer(body, &deposits)
		var holders strictList[CollateralHolder]
		_ = decodeAnswer(body, &holders)
		var earnTx EarnTxResponse
		_ = decodeAnswer(body, &earnTx)
	})
}
