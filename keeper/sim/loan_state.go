package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
)

// Loan accounts are owned by the market program. Their data is an 8-byte discriminator,
// sha256("account:SimLoan")[:8], followed by the JSON of loanState: the simulator's own layout, which
// keeps everything a transaction changes on chain so that a transaction's effects commit or roll back
// with it.
var loanDisc = [8]byte{0x0c, 0x1d, 0xda, 0x5c, 0xce, 0xae, 0x0c, 0x5c} // clmm.Discriminator("SimLoan"), written out: see lazy

// Loan statuses and ledger statuses of the simulator (the spec shows no values).
const (
	loanStatusActive   int32 = 0
	loanStatusRepaid   int32 = 1
	ledgerStatusActive int32 = 0
	ledgerStatusRepaid int32 = 1
)

// Collateral history kinds.
const (
	eventAddCollateral    = "AddCollateral"
	eventRemoveCollateral = "RemoveCollateral"
	eventLiquidate        = "Liquidate"
	eventRepayPrincipal   = "RepayPrincipal"
)

// loanState is the on-chain state of one loan.
type loanState struct {
	Borrower           string             `json:"borrower"`
	ID                 int64              `json:"id"`
	Nonce              int64              `json:"nonce"`
	Bump               int                `json:"bump"`
	StartTime          int64              `json:"startTime"`
	Closed             bool               `json:"closed"`
	Status             int32              `json:"loanStatus"`
	LoanType           int32              `json:"loanType"`
	FundingType        int32              `json:"orderFundingType"`
	WriteVersion       int64              `json:"writeVersion"`
	LastInteractedTime int64              `json:"lastInteractedTime"`
	LastInteractedTxn  string             `json:"lastInteractedTxn"`
	Collateral         []collateralState  `json:"collateral"`
	Ledgers            []ledgerState      `json:"ledgers"`
	History            []historyEvent     `json:"history"`
	Markers            []market.PnLMarker `json:"markers,omitempty"`
	Inflow             inflowState        `json:"inflow"`
}

// collateralState is one collateral slot. Dex is "dex-a" or "dex-b" for CLMM position collateral,
// whose AssetIdentifier is the pool and AssetMint the position mint.
type collateralState struct {
	Index              int    `json:"index"`
	AssetIdentifier    string `json:"assetIdentifier"`
	AssetMint          string `json:"assetMint"`
	AssetType          int32  `json:"assetType"`
	Amount             uint64 `json:"amount"`
	ID                 int64  `json:"id"`
	LastInteractedTime int64  `json:"lastInteractedTime"`
	LastInteractedTxn  string `json:"lastInteractedTxn"`
	WriteVersion       int64  `json:"writeVersion"`
	Dex                string `json:"dex,omitempty"`
}

// ledgerState is one debt record. InterestOutstanding is accrued up to LastInterestUpdatedTime.
type ledgerState struct {
	Index                   int     `json:"ledgerIndex"`
	Strategy                string  `json:"strategy"`
	PrincipalMint           string  `json:"principalMint"`
	PrincipalDue            uint64  `json:"principalDue"`
	PrincipalRepaid         uint64  `json:"principalRepaid"`
	InterestOutstanding     uint64  `json:"interestOutstanding"`
	LastInterestUpdatedTime int64   `json:"lastInterestUpdatedTime"`
	Apy                     int64   `json:"apy"`
	Duration                int32   `json:"duration"`
	DurationType            int32   `json:"durationType"`
	StartTime               int64   `json:"startTime"`
	EndTime                 int64   `json:"endTime"`
	LtvRatios               []int64 `json:"ltvRatios"`
	LqtRatios               []int64 `json:"lqtRatios"`
	Weights                 []int64 `json:"weights"`
	MarketInformation       string  `json:"marketInformation"`
	Status                  int32   `json:"status"`
	ID                      int64   `json:"id"`
	IsLoop                  float64 `json:"isLoop"`
	WriteVersion            int64   `json:"writeVersion"`
	LastInteractedTime      int64   `json:"lastInteractedTime"`
	LastInteractedTxn       string  `json:"lastInteractedTxn"`
}

// historyEvent is one collateral-history record. For Liquidate, Amount is the principal repaid and
// Transfers the collateral moved; USD is the event's value for the borrower's net inflow.
type historyEvent struct {
	Time            int64                `json:"time"`
	Kind            string               `json:"kind"`
	AssetIdentifier string               `json:"assetIdentifier,omitempty"`
	AssetMint       string               `json:"assetMint,omitempty"`
	Amount          uint64               `json:"amount"`
	Transfers       []collateralTransfer `json:"collateralTransfers,omitempty"`
	Txn             string               `json:"txn,omitempty"`
}

// collateralTransfer is one collateral movement of a Liquidate event.
type collateralTransfer struct {
	AssetMint    string `json:"assetMint"`
	Amount       uint64 `json:"amount"`
	ToLiquidator bool   `json:"toLiquidator"`
}

// inflowState tracks the borrower's net inflows into the loan for PnL (spec aggregate rule 4):
// collateral in whole tokens of the first collateral's mint and in USD at the time, and principal
// (repaid minus borrowed) in whole tokens and USD.
type inflowState struct {
	InitialCollateral    float64 `json:"initialCollateral"`
	InitialCollateralUSD float64 `json:"initialCollateralUsd"`
	CollateralTokens     float64 `json:"collateralTokens"`
	CollateralUSD        float64 `json:"collateralUsd"`
	PrincipalTokens      float64 `json:"principalTokens"`
	PrincipalUSD         float64 `json:"principalUsd"`
}

// encodeLoan returns the account data of l.
func encodeLoan(l *loanState) ([]byte, error) {
	return encodeJSONAccount(loanDisc, l)
}

// decodeLoan parses loan account data.
func decodeLoan(data []byte) (*loanState, error) {
	var l loanState
	if err := decodeJSONAccount(loanDisc, "loan", data, &l); err != nil {
		return nil, err
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("loan account: %w", err)
	}
	return &l, nil
}

// validate checks that every address in the loan parses, so that code reading a decoded loan can
// rely on them.
func (l *loanState) validate() error {
	keys := []string{l.Borrower}
	for _, c := range l.Collateral {
		keys = append(keys, c.AssetIdentifier, c.AssetMint)
	}
	for _, g := range l.Ledgers {
		keys = append(keys, g.Strategy, g.PrincipalMint)
	}
	for _, k := range keys {
		if _, err := solana.PublicKeyFromBase58(k); err != nil {
			return fmt.Errorf("address %q: %w", k, err)
		}
	}
	return nil
}

// encodeJSONAccount returns disc followed by the JSON of v.
func encodeJSONAccount(disc [8]byte, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(disc[:], body...), nil
}

// errNoAccount means an account has no data (it does not exist or was closed).
var errNoAccount = errors.New("account not found")

// decodeJSONAccount checks disc and decodes the JSON after it into v.
func decodeJSONAccount(disc [8]byte, what string, data []byte, v any) error {
	if len(data) == 0 {
		return fmt.Errorf("%s %w", what, errNoAccount)
	}
	if len(data) < 8 || !bytes.Equal(data[:8], disc[:]) {
		return fmt.Errorf("%s account: wrong discriminator", what)
	}
	if err := json.Unmarshal(data[8:], v); err != nil {
		return fmt.Errorf("%s account: %w", what, err)
	}
	return nil
}

// outstanding returns principalDue − principalRepaid, or 0.
func (l *ledgerState) outstanding() uint64 {
	if l.PrincipalRepaid >= l.PrincipalDue {
		return 0
	}
	return l.PrincipalDue - l.PrincipalRepaid
}

// interestPerSecond returns the interest the outstanding principal accrues per second, in principal
// smallest units: outstanding × apy / 1e6 / SECONDS_PER_YEAR.
func (l *ledgerState) interestPerSecond() float64 {
	return float64(l.outstanding()) * float64(l.Apy) / 1e6 / market.SecondsPerYear
}

// interestAt returns the interest outstanding at unix time now: the stored amount plus what accrued
// since LastInterestUpdatedTime, up to EndTime, rounded down.
func (l *ledgerState) interestAt(now int64) uint64 {
	span := min(now, l.EndTime) - l.LastInterestUpdatedTime
	if span <= 0 {
		return l.InterestOutstanding
	}
	accrued := math.Floor(l.interestPerSecond() * float64(span))
	return l.InterestOutstanding + uint64(accrued)
}

// accrue brings InterestOutstanding up to now.
func (l *ledgerState) accrue(now int64) {
	l.InterestOutstanding = l.interestAt(now)
	l.LastInterestUpdatedTime = max(l.LastInterestUpdatedTime, now)
}

// touch records an interaction with the loan.
func (l *loanState) touch(now int64, txn string) {
	l.WriteVersion++
	l.LastInteractedTime = now
	l.LastInteractedTxn = txn
}

// collateralAt returns the collateral slot with index i.
func (l *loanState) collateralAt(i int) (*collateralState, bool) {
	for k := range l.Collateral {
		if l.Collateral[k].Index == i {
			return &l.Collateral[k], true
		}
	}
	return nil, false
}

// ledgerAt returns the ledger with index i.
func (l *loanState) ledgerAt(i int) (*ledgerState, bool) {
	for k := range l.Ledgers {
		if l.Ledgers[k].Index == i {
			return &l.Ledgers[k], true
		}
	}
	return nil, false
}

// collateralByPositionMint returns the CLMM collateral slot of a position mint.
func (l *loanState) collateralByPositionMint(mint string) (*collateralState, bool) {
	for k := range l.Collateral {
		if l.Collateral[k].Dex != "" && l.Collateral[k].AssetMint == mint {
			return &l.Collateral[k], true
		}
	}
	return nil, false
}

// hasDebt reports whether some ledger has outstanding principal.
func (l *loanState) hasDebt() bool {
	for i := range l.Ledgers {
		if l.Ledgers[i].outstanding() > 0 {
			return true
		}
	}
	return false
}
