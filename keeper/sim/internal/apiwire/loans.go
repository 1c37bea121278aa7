package apiwire

// Aggregate sums the whole filter-matched loan set, not the page. APYs are fractions. Borrower daily
// net carry is DailyCollateralYieldUsd − DailyInterestUsd; lender daily net carry is DailyInterestUsd.
type Aggregate struct {
	Count                    int64   `json:"count"`
	CollateralUsd            float64 `json:"collateralUsd"`
	PrincipalUsd             float64 `json:"principalUsd"`
	InterestAccruedUsd       float64 `json:"interestAccruedUsd"`
	InterestEarnedAllTimeUsd float64 `json:"interestEarnedAllTimeUsd"`
	PendingYieldUsd          float64 `json:"pendingYieldUsd"`
	DailyInterestUsd         float64 `json:"dailyInterestUsd"`
	DailyCollateralYieldUsd  float64 `json:"dailyCollateralYieldUsd"`
	DailyPrincipalYieldUsd   float64 `json:"dailyPrincipalYieldUsd"`
	WAvgApy                  float64 `json:"wAvgApy"`
	WAvgCollateralApy        float64 `json:"wAvgCollateralApy"`
	PnlUsd                   float64 `json:"pnlUsd"`
	TokenUsdPnl              float64 `json:"tokenUsdPnl"`
}

// LoansPage is the E3 response: the aggregate over the matched loans, the mints they involve, one
// page of summary items, the page envelope and the time of the pinned price snapshot.
type LoansPage struct {
	Aggregate       *Aggregate `json:"aggregate,omitempty"`
	CollateralMints []string   `json:"collateralMints"`
	Items           []LoanItem `json:"items"`
	PageInfo        *PageInfo  `json:"pageInfo,omitempty"`
	PrincipalMints  []string   `json:"principalMints"`
	// SnapshotTs is the timestamp of the one pinned oracle snapshot all USD fields of this page use.
	SnapshotTs float64 `json:"snapshotTs"`
}

// LoansQuery is the body of E3 (POST markets/loans/info). Every field is an optional filter; the
// simulator applies each as the spec describes it (collateralMints on the entry's asset mint,
// collateralIdentifiers on its asset identifier).
type LoansQuery struct {
	LoanAddresses                     []string          `json:"loanAddresses,omitempty"`
	Borrowers                         []string          `json:"borrowers,omitempty"`
	Lenders                           []string          `json:"lenders,omitempty"`
	PrincipalMints                    []string          `json:"principalMints,omitempty"`
	ExcludePrincipalMints             []string          `json:"excludePrincipalMints,omitempty"`
	CollateralMints                   []string          `json:"collateralMints,omitempty"`
	CollateralIdentifiers             []string          `json:"collateralIdentifiers,omitempty"`
	ExcludeCollateralMints            []string          `json:"excludeCollateralMints,omitempty"`
	ExcludeCollateralIdentifiers      []string          `json:"excludeCollateralIdentifiers,omitempty"`
	AssetTypes                        []AssetType       `json:"assetTypes,omitempty"`
	LoopVaultPrincipalCollateralPairs []LoopPair        `json:"loopVaultPrincipalCollateralPairs,omitempty"`
	FilterType                        *FilterType       `json:"filterType,omitempty"`
	OrderFundingTypes                 *OrderFundingType `json:"orderFundingTypes,omitempty"`
	IncludePnl                        bool              `json:"includePnl,omitempty"`
	Page                              *int              `json:"page,omitempty"`
	PageSize                          *int              `json:"pageSize,omitempty"`
	SortSide                          *SortSide         `json:"sortSide,omitempty"`
	SortType                          *SortType         `json:"sortType,omitempty"`
}

// LoopPair is one element of LoansQuery.LoopVaultPrincipalCollateralPairs.
type LoopPair struct {
	CollateralAssetIdentifier string `json:"collateralAssetIdentifier"`
	PrincipalAssetIdentifier  string `json:"principalAssetIdentifier"`
}

// PageInfo is the pagination envelope shared by paginated listings. TotalItems and TotalPages are
// filter-scoped.
type PageInfo struct {
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	TotalItems int `json:"totalItems"`
	TotalPages int `json:"totalPages"`
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

// CollateralUSD is one element of a loan's collateralBreakdown.
type CollateralUSD struct {
	AssetIdentifier string  `json:"assetIdentifier"`
	Usd             float64 `json:"usd"`
}

// Ledger is one debt record of a loan. Amounts are in the principal mint's smallest units; Apy,
// LqtRatios, LtvRatios and Weights are centi-basis points, the ratio arrays indexed by collateral
// Index.
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

// MarkerMetadata is a PnL marker's metadata.
type MarkerMetadata struct {
	NewCollateralMint      string `json:"newCollateralMint"`
	PreviousCollateralMint string `json:"previousCollateralMint"`
}

// MarkerRollover is the PnL marker type of a loan rollover.
const MarkerRollover = "rollover"

// PnL is a loan item's PnL details, filled when the loans-info request sets includePnl.
type PnL struct {
	CollateralPnl                        float64                    `json:"collateralPnl"`
	CollateralPnlPctChange               float64                    `json:"collateralPnlPctChange"`
	InitialUserCollateralContribution    float64                    `json:"initialUserCollateralContribution"`
	InitialUserCollateralContributionUsd float64                    `json:"initialUserCollateralContributionUsd"`
	NetCollateralInflow                  float64                    `json:"netCollateralInflow"`
	NetCollateralUsdInflow               float64                    `json:"netCollateralUsdInflow"`
	NetPrincipalInflow                   float64                    `json:"netPrincipalInflow"`
	NetPrincipalUsdInflow                float64                    `json:"netPrincipalUsdInflow"`
	TokenUsdPnl                          float64                    `json:"tokenUsdPnl"`
	UsdPnl                               float64                    `json:"usdPnl"`
	UsdPnlPctChange                      float64                    `json:"usdPnlPctChange"`
	Markers                              []PnLMarker                `json:"markers"`
	PnlData                              Series[PnLPoint]           `json:"pnlData"`
	PositionValueData                    Series[PositionValuePoint] `json:"positionValueData"`
	RateHistoryData                      Series[RatePoint]          `json:"rateHistoryData"`
}

// PnLMarker marks an event on a loan's PnL timeline, such as a rollover.
type PnLMarker struct {
	Date     float64        `json:"date"`
	Type     string         `json:"type"`
	Metadata MarkerMetadata `json:"metadata"`
}

// PnLPoint is one point of pnlData.
type PnLPoint struct {
	Date                             float64 `json:"date"`
	CollateralPrice                  float64 `json:"collateralPrice"`
	CollateralValueUsd               float64 `json:"collateralValueUsd"`
	IsProjection                     bool    `json:"isProjection"`
	NetCollateralTransferTokenAmount float64 `json:"netCollateralTransferTokenAmount"`
	NetCollateralTransferUsdAmount   float64 `json:"netCollateralTransferUsdAmount"`
	NetPositionValueTokenAmount      float64 `json:"netPositionValueTokenAmount"`
	NetPositionValueUsd              float64 `json:"netPositionValueUsd"`
	PrincipalValueUsd                float64 `json:"principalValueUsd"`
	TokenPnl                         float64 `json:"tokenPnl"`
	UsdPnl                           float64 `json:"usdPnl"`
}

// PositionValuePoint is one point of positionValueData.
type PositionValuePoint struct {
	CollateralMint              string  `json:"collateralMint"`
	Date                        float64 `json:"date"`
	CollateralTokenAmount       float64 `json:"collateralTokenAmount"`
	CollateralTokenAmountOfDebt float64 `json:"collateralTokenAmountOfDebt"`
	CollateralValueUsd          float64 `json:"collateralValueUsd"`
	IsProjection                bool    `json:"isProjection"`
	NetPositionValueTokenAmount float64 `json:"netPositionValueTokenAmount"`
	NetPositionValueUsd         float64 `json:"netPositionValueUsd"`
	PrincipalValueUsd           float64 `json:"principalValueUsd"`
}

// RatePoint is one point of rateHistoryData. APYs are fractions.
type RatePoint struct {
	CollateralMint string  `json:"collateralMint"`
	Date           float64 `json:"date"`
	BorrowApy      float64 `json:"borrowApy"`
	CollateralApy  float64 `json:"collateralApy"`
	IsProjection   bool    `json:"isProjection"`
	NetApy         float64 `json:"netApy"`
}

// Series is a PnL time series: an object holding dataPoints.
type Series[T any] struct {
	DataPoints []T `json:"dataPoints"`
}
