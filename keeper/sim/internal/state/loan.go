package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/gagliardetto/solana-go"
)

// Loan accounts are owned by the market program. Their data is an 8-byte discriminator,
// sha256("account:SimLoan")[:8], followed by the JSON of Loan: the simulator's own layout, which
// keeps everything a transaction changes on chain so that a transaction's effects commit or roll back
// with it.
var loanDisc = [8]byte{0x0c, 0x1d, 0xda, 0x5c, 0xce, 0xae, 0x0c, 0x5c} // clmm.Discriminator("SimLoan"), written out: see lazy

// Loan statuses and ledger statuses of the simulator (the spec shows no values).
const (
	LoanStatusActive   int32 = 0
	LoanStatusRepaid   int32 = 1
	LedgerStatusActive int32 = 0
	LedgerStatusRepaid int32 = 1
)

// Collateral history kinds.
const (
	EventAddCollateral    = "AddCollateral"
	EventRemoveCollateral = "RemoveCollateral"
	EventLiquidate        = "Liquidate"
	EventRepayPrincipal   = "RepayPrincipal"
)

// Loan is the on-chain state of one loan.
type Loan struct {
	Borrower           string         `json:"borrower"`
	ID                 int64          `json:"id"`
	Nonce              int64          `json:"nonce"`
	Bump               int            `json:"bump"`
	StartTime          int64          `json:"startTime"`
	Closed             bool           `json:"closed"`
	Status             int32          `json:"loanStatus"`
	LoanType           int32          `json:"loanType"`
	FundingType        int32          `json:"orderFundingType"`
	WriteVersion       int64          `json:"writeVersion"`
	LastInteractedTime int64          `json:"lastInteractedTime"`
	LastInteractedTxn  string         `json:"lastInteractedTxn"`
	Collateral         []Collateral   `json:"collateral"`
	Ledgers            []Ledger       `json:"ledgers"`
	History            []HistoryEvent `json:"history"`
	Markers            []Marker       `json:"markers,omitempty"`
	Inflow             Inflow         `json:"inflow"`
	// FlashOwed is what flash loans of this transaction still owe, by ledger index (see OpFlashBorrow).
	FlashOwed map[int]uint64 `json:"flashOwed,omitempty"`
}

// Collateral is one collateral slot. Dex is "dex-a" or "dex-b" for CLMM position collateral,
// whose AssetIdentifier is the pool and AssetMint the position mint.
type Collateral struct {
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

// Ledger is one debt record. InterestOutstanding is accrued up to LastInterestUpdatedTime.
type Ledger struct {
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

// HistoryEvent is one collateral-history record. For Liquidate, Amount is the principal repaid and
// Transfers the collateral moved; USD is the event's value for the borrower's net inflow.
type HistoryEvent struct {
	Time            int64                `json:"time"`
	Kind            string               `json:"kind"`
	AssetIdentifier string               `json:"assetIdentifier,omitempty"`
	AssetMint       string               `json:"assetMint,omitempty"`
	Amount          uint64               `json:"amount"`
	Transfers       []CollateralTransfer `json:"collateralTransfers,omitempty"`
	Txn             string               `json:"txn,omitempty"`
}

// CollateralTransfer is one collateral movement of a Liquidate event.
type CollateralTransfer struct {
	AssetMint    string `json:"assetMint"`
	Amount       uint64 `json:"amount"`
	ToLiquidator bool   `json:"toLiquidator"`
}

// Inflow tracks the borrower's net inflows into the loan for PnL (spec aggregate rule 4):
// collateral in whole tokens of the first collateral's mint and in USD at the time, and principal
// (repaid minus borrowed) in whole tokens and USD.
type Inflow struct {
	InitialCollateral    float64 `json:"initialCollateral"`
	InitialCollateralUSD float64 `json:"initialCollateralUsd"`
	CollateralTokens     float64 `json:"collateralTokens"`
	CollateralUSD        float64 `json:"collateralUsd"`
	PrincipalTokens      float64 `json:"principalTokens"`
	PrincipalUSD         float64 `json:"principalUsd"`
}

// EncodeLoan returns the account data of l.
func EncodeLoan(l *Loan) ([]byte, error) {
	return encodeJSONAccount(loanDisc, l)
}

// DecodeLoan parses loan account data.
func DecodeLoan(data []byte) (*Loan, error) {
	l, err := decodeJSONAccount[Loan](loanDisc, "loan", data)
	if err != nil {
		return nil, err
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("loan account: %w", err)
	}
	return l, nil
}

// validate checks that every address in the loan parses, so that code reading a decoded loan can
// rely on them.
func (l *Loan) validate() error {
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

// decodeJSONAccount checks disc and decodes the JSON after it into a T.
func decodeJSONAccount[T any](disc [8]byte, what string, data []byte) (*T, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s %w", what, errNoAccount)
	}
	if len(data) < 8 || !bytes.Equal(data[:8], disc[:]) {
		return nil, fmt.Errorf("%s account: wrong discriminator", what)
	}
	v := new(T)
	if err := json.Unmarshal(data[8:], v); err != nil {
		return nil, fmt.Errorf("%s account: %w", what, err)
	}
	return v, nil
}

// Outstanding returns principalDue − principalRepaid, or 0.
func (l *Ledger) Outstanding() uint64 {
	if l.PrincipalRepaid >= l.PrincipalDue {
		return 0
	}
	return l.PrincipalDue - l.PrincipalRepaid
}

// InterestPerSecond returns the interest the outstanding principal accrues per second, in principal
// smallest units: outstanding × apy / 1e6 / SECONDS_PER_YEAR.
func (l *Ledger) InterestPerSecond() float64 {
	return float64(l.Outstanding()) * float64(l.Apy) / 1e6 / secondsPerYear
}

// InterestAt returns the interest outstanding at unix time now: the stored amount plus what accrued
// since LastInterestUpdatedTime, up to EndTime, rounded down.
func (l *Ledger) InterestAt(now int64) uint64 {
	span := min(now, l.EndTime) - l.LastInterestUpdatedTime
	if span <= 0 {
		return l.InterestOutstanding
	}
	accrued := math.Floor(l.InterestPerSecond() * float64(span))
	return l.InterestOutstanding + uint64(accrued)
}

// Accrue brings InterestOutstanding up to now.
func (l *Ledger) Accrue(now int64) {
	l.InterestOutstanding = l.InterestAt(now)
	l.LastInterestUpdatedTime = max(l.LastInterestUpdatedTime, now)
}

// Touch records an interaction with the loan.
func (l *Loan) Touch(now int64, txn string) {
	l.WriteVersion++
	l.LastInteractedTime = now
	l.LastInteractedTxn = txn
}

// CollateralAt returns the collateral slot with index i.
func (l *Loan) CollateralAt(i int) (*Collateral, bool) {
	for k := range l.Collateral {
		if l.Collateral[k].Index == i {
			return &l.Collateral[k], true
		}
	}
	return nil, false
}

// LedgerAt returns the ledger with index i.
func (l *Loan) LedgerAt(i int) (*Ledger, bool) {
	for k := range l.Ledgers {
		if l.Ledgers[k].Index == i {
			return &l.Ledgers[k], true
		}
	}
	return nil, false
}

// CollateralByPositionMint returns the CLMM collateral slot of a position mint.
func (l *Loan) CollateralByPositionMint(mint string) (*Collateral, bool) {
	for k := range l.Collateral {
		if l.Collateral[k].Dex != "" && l.Collateral[k].AssetMint == mint {
			return &l.Collateral[k], true
		}
	}
	return nil, false
}

// HasDebt reports whether some ledger has outstanding principal.
func (l *Loan) HasDebt() bool {
	for i := range l.Ledgers {
		if l.Ledgers[i].Outstanding() > 0 {
			return true
		}
	}
	return false
}

// secondsPerYear is the spec's SECONDS_PER_YEAR, by which an APY accrues per second.
const secondsPerYear = 31_536_000

// Marker is an event of a loan's PnL history: a rollover of its collateral at Date (unix seconds).
type Marker struct {
	Date                   int64  `json:"date"`
	Type                   string `json:"type"`
	NewCollateralMint      string `json:"newCollateralMint"`
	PreviousCollateralMint string `json:"previousCollateralMint"`
}

// MarkerRollover is the type of a rollover marker.
const MarkerRollover = "rollover"
