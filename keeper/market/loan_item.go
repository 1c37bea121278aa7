package market

// LoanItem is one loan summary item of the loans-info response. USD fields use the page's pinned
// oracle snapshot. Pnl is set only when the request set IncludePnl.
type LoanItem struct {
	Loan                Loan            `json:"loan"`
	Collateral          []Collateral    `json:"collateral"`
	Ledgers             []Ledger        `json:"ledgers"`
	LoanType            LoanType        `json:"loanType"`
	CollateralYieldPct  float64         `json:"collateralYieldPct"`
	PrincipalYieldPct   float64         `json:"principalYieldPct"`
	CollateralBreakdown []CollateralUSD `json:"collateralBreakdown"`
	CollateralUsd       float64         `json:"collateralUsd"`
	CollateralUsdRisk   float64         `json:"collateralUsdRisk"`
	PrincipalUsd        float64         `json:"principalUsd"`
	PrincipalUsdRisk    float64         `json:"principalUsdRisk"`
	InterestAccruedUsd  float64         `json:"interestAccruedUsd"`
	PendingYieldUsd     float64         `json:"pendingYieldUsd"`
	// PnlUsd is realized plus unrealized PnL.
	PnlUsd float64 `json:"pnlUsd"`
	Pnl    *PnL    `json:"pnl,omitempty"`
}

// CollateralUSD is one element of a loan's collateralBreakdown.
type CollateralUSD struct {
	AssetIdentifier string  `json:"assetIdentifier"`
	Usd             float64 `json:"usd"`
}

// Loan is the loan record of a loan summary item.
type Loan struct {
	Address            string     `json:"address"`
	Borrower           string     `json:"borrower"`
	Bump               int        `json:"bump"`
	Closed             bool       `json:"closed"`
	LastInteractedTime UnixTime   `json:"lastInteractedTime"`
	LastInteractedTxn  string     `json:"lastInteractedTxn"`
	LoanStatus         LoanStatus `json:"loanStatus"`
	Nonce              int64      `json:"nonce"`
	StartTime          UnixTime   `json:"startTime"`
	WriteVersion       int64      `json:"writeVersion"`
	ID                 int64      `json:"id"`
}

// Collateral is one collateral entry of a loan. For plain token collateral AssetIdentifier equals
// AssetMint; for LP/pool collateral AssetIdentifier is the pool id. Index is the collateral slot that
// ledger weights, ltvRatios and lqtRatios are indexed by.
type Collateral struct {
	Amount             Amount    `json:"amount"`
	AssetIdentifier    string    `json:"assetIdentifier"`
	AssetMint          string    `json:"assetMint"`
	AssetType          AssetType `json:"assetType"`
	Index              int       `json:"index"`
	Loan               string    `json:"loan"`
	ID                 int64     `json:"id"`
	LastInteractedTime UnixTime  `json:"lastInteractedTime"`
	LastInteractedTxn  string    `json:"lastInteractedTxn"`
	WriteVersion       int64     `json:"writeVersion"`
}

// IsPool reports whether the collateral is LP/pool (CLMM) collateral: its identifier is not its mint.
func (c Collateral) IsPool() bool { return c.AssetIdentifier != c.AssetMint }

// Ledger is one debt record of a loan. Amounts are in the principal mint's smallest units; Apy,
// LqtRatios, LtvRatios and Weights are centi-basis points, the ratio arrays indexed by collateral
// Index. Older generations name LastInterestUpdatedTime lastInterestUpdateTime; both decode.
type Ledger struct {
	Apy                     CBPS         `json:"apy"`
	Duration                int32        `json:"duration"`
	DurationType            DurationType `json:"durationType"`
	StartTime               UnixTime     `json:"startTime"`
	EndTime                 UnixTime     `json:"endTime"`
	InterestOutstanding     Amount       `json:"interestOutstanding"`
	InterestPerSecond       Number       `json:"interestPerSecond"`
	LastInterestUpdatedTime UnixTime     `json:"lastInterestUpdatedTime"`
	LastInteractedTime      UnixTime     `json:"lastInteractedTime"`
	LastInteractedTxn       string       `json:"lastInteractedTxn"`
	LedgerIndex             int          `json:"ledgerIndex"`
	Loan                    string       `json:"loan"`
	LqtRatios               []CBPS       `json:"lqtRatios"`
	LtvRatios               []CBPS       `json:"ltvRatios"`
	Weights                 []CBPS       `json:"weights"`
	MarketInformation       string       `json:"marketInformation"`
	PrincipalDue            Amount       `json:"principalDue"`
	PrincipalMint           string       `json:"principalMint"`
	PrincipalRepaid         Amount       `json:"principalRepaid"`
	Status                  LedgerStatus `json:"status"`
	Strategy                string       `json:"strategy"`
	ID                      int64        `json:"id"`
	IsLoop                  Number       `json:"isLoop"`
	WriteVersion            int64        `json:"writeVersion"`
}

// OutstandingPrincipal returns PrincipalDue − PrincipalRepaid, or 0 when more was repaid than due.
func (l Ledger) OutstandingPrincipal() Amount {
	if l.PrincipalRepaid >= l.PrincipalDue {
		return 0
	}
	return l.PrincipalDue - l.PrincipalRepaid
}
