package api

import (
	"context"
	"github.com/keeper-project/keeper/keeper/market"
	"net/http"
	"reflect"
	"testing"
)

// endpointCase is one endpoint call with the exact request it must send and the response it decodes.
type endpointCase struct {
	name     string
	call     func(ctx context.Context, c *Client) (any, error)
	path     string
	body     string
	write    bool
	wallet   bool
	response string
	want     any
}

const testKey market.IdempotencyKey = "action-7f3a-1"

func endpointCases(t *testing.T) []endpointCase {
	oneTx := `{"message":"AQAB","signatures":[{"publicKey":"CoSigner","signature":"c2ln"}]}`
	wantTx := &market.Transaction{Message: "AQAB", Signatures: []market.Signature{{PublicKey: "CoSigner", Signature: "c2ln"}}}
	return []endpointCase{
		{
			name: "E1 update strategy",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateStrategy(ctx, testKey, market.StrategyUpdateRequest{
					Strategy: "Strat1",
					CollateralTerms: &market.CollateralTerms{
						AddCollateral: map[string]market.AddCollateral{"MintA": {
							DurationsAndApys: market.DurationAPYs(map[market.StrategyDuration]market.CBPS{{DurationType: market.DurationDays, Duration: 7}: 100000}),
						}},
						RemoveCollateral: map[string]market.RemoveCollateral{"MintB": {
							Durations: []market.StrategyDuration{{DurationType: market.DurationWeeks, Duration: 2}},
						}},
						UpdateAssetAllocation: []market.AssetAllocation{{AssetIdentifier: "MintA", MaxAllocationPct: "25"}},
						UpdateCollateral: map[string]market.CollateralParamsUpdate{"MintC": {
							ApyUpdate: market.DurationAPYs(map[market.StrategyDuration]market.CBPS{{DurationType: market.DurationMonths, Duration: 1}: 120000}),
							LtvUpdate: &market.ParsedUpdateAssetData{AssetIdentifier: "MintC", Ltv: new(int32(600000))},
						}},
					},
					UpdateParams: &market.UpdateParams{LiquidityBuffer: new(int64(5)), OriginationsEnabled: new(false)},
				})
			},
			path: "/markets/strategy/update",
			body: `{"strategy":"Strat1","collateralTerms":{"addCollateral":{"MintA":{"durationsAndApys":` +
				`{"{\"durationType\":0,\"duration\":7}":"100000"}}},"removeCollateral":{"MintB":{"durations":` +
				`[{"durationType":1,"duration":2}],"removeFromMarketInformation":false}},"updateAssetAllocation":` +
				`[{"assetIdentifier":"MintA","maxAllocationPct":"25"}],"updateCollateral":{"MintC":{"apyUpdate":` +
				`{"{\"durationType\":2,\"duration\":1}":"120000"},"ltvUpdate":{"assetIdentifier":"MintC","ltv":600000}}}},` +
				`"updateParams":{"liquidityBuffer":5,"originationsEnabled":false}}`,
			write: true, wallet: true,
			response: `[` + oneTx + `,{"message":"AgAC","signatures":[]}]`,
			want:     []market.Transaction{*wantTx, {Message: "AgAC", Signatures: []market.Signature{}}},
		},
		{
			name: "E2 build loan",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.BuildLoan(ctx, testKey, market.BuildLoanRequest{Loan: "Loan1", Steps: []market.Step{{
					Type: market.StepRepay,
					Params: market.StepParams{Loan: "Loan1", RepayParams: []market.RepayParam{{Amount: 1_500_000}},
						CloseIfPossible: new(false)},
				}}})
			},
			path: "/markets/creditbook/build",
			body: `{"loan":"Loan1","steps":[{"type":"repay","params":{"loan":"Loan1","repayParams":` +
				`[{"amount":1500000,"ledgerIndex":0,"repayAll":false}],"closeIfPossible":false}}]}`,
			write: true, wallet: true,
			response: `{"loan":"Loan1","transactions":[` + oneTx + `],"unknownField":1}`,
			want:     &market.BuildLoanResponse{Loan: "Loan1", Transactions: []market.Transaction{*wantTx}},
		},
		{
			name: "E3 loans info",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.LoansInfo(ctx, market.LoansQuery{Borrowers: []string{testWallet}, FilterType: new(market.FilterActive),
					IncludePnl: true, Page: new(0), PageSize: new(50)})
			},
			path:     "/markets/loans/info",
			body:     `{"borrowers":["` + testWallet + `"],"filterType":0,"includePnl":true,"page":0,"pageSize":50}`,
			response: fixture(t, "loans_info.json"),
			want:     decoded[market.LoansPage](t, fixture(t, "loans_info.json")),
		},
		{
			name: "E4 transfer position",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.TransferPosition(ctx, testKey, market.TransferPositionRequest{
					Loan: "Loan1", PositionMint: "PosMint", SlippageDecimals: 0.5,
					TransferParams: market.TransferParams{
						AssetIndexGuidance: []int{0, 1}, CollateralIndex: 1, LiquidityAmount: 123456789,
						TickLowerIndex: -100, TickUpperIndex: 200,
						Variant: market.TransferMode{Liquidity: &market.LiquidityTransfer{SlippageToleranceBps: 50}},
					},
				})
			},
			path: "/markets/creditbook/collateral/dex-a/transfer_position",
			body: `{"loan":"Loan1","positionMint":"PosMint","slippageDecimals":0.5,"transferParams":` +
				`{"assetIndexGuidance":[0,1],"collateralIndex":1,"liquidityAmount":123456789,"tickLowerIndex":-100,` +
				`"tickUpperIndex":200,"transferParams":{"Liquidity":{"slippageToleranceBps":50}}}}`,
			write: true, wallet: true, response: oneTx, want: wantTx,
		},
		{
			name: "E5 vault depositors",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.VaultDeposits(ctx, market.VaultDepositsQuery{VaultAddresses: []string{"VaultA"}, Page: new(0),
					PageSize: new(2), Status: new(market.PositionStatus(1))})
			},
			path: "/markets/lending_vaults/deposits",
			body: `{"vaultAddresses":["VaultA"],"page":0,"pageSize":2,"status":1}`,
			response: `[{"vaultAddress":"VaultA","userDeposits":[{"amountSupplied":"5000000000","userAddress":"U1"},` +
				`{"amountSupplied":12,"userAddress":"U2"}]}]`,
			want: []market.VaultDeposits{{VaultAddress: "VaultA", UserDeposits: []market.UserDeposit{
				{AmountSupplied: 5_000_000_000, UserAddress: "U1"}, {AmountSupplied: 12, UserAddress: "U2"}}}},
		},
		{
			name: "E6 best quote",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.BestQuotes(ctx, market.QuoteRequest{
					CollateralFilter: []market.CollateralFilter{{Amount: 1_000_000_000, AssetData: market.SplAssetData(solMint)}},
					Duration:         7, DurationType: market.DurationDays, PrincipalMint: usdcMint,
				})
			},
			path: "/markets/quote/max",
			body: `{"collateralFilter":[{"amount":1000000000,"assetData":{"Spl":{"mint":"` + solMint + `"}}}],` +
				`"duration":7,"durationType":0,"principalMint":"` + usdcMint + `"}`,
			wallet: true,
			response: `[{"amount":250000000,"apy":"85000","collateralIdentifier":"` + solMint +
				`","lqt":850000,"ltv":750000,"strategy":"Strat1"}]`,
			want: []market.Quote{{Amount: 250_000_000, Apy: 85000, CollateralIdentifier: solMint, Lqt: 850000, Ltv: 750000,
				Strategy: "Strat1"}},
		},
		{
			name: "E7 historical holders",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.HistoricalHolders(ctx, market.HoldersRequest{Mint: "PoolId", RangeStart: 1700000000,
					RangeEnd: 1700086400, Pdas: true})
			},
			path: "/markets/collateral/holders/historical",
			body: `{"mint":"PoolId","rangeStart":1700000000,"rangeEnd":1700086400,"pdas":true}`,
			response: `[{"collateralMint":"PoolId","rangeStart":1700000000,"rangeEnd":1700086400,` +
				`"userDepositSeconds":{"Loan1":"86400.5","Loan2":1200}}]`,
			want: []market.CollateralHolder{{CollateralMint: "PoolId", RangeStart: 1700000000, RangeEnd: 1700086400,
				UserDepositSeconds: map[string]market.Decimal{"Loan1": market.DecimalOf(86400.5), "Loan2": market.DecimalOf(1200)}}},
		},
		{
			name: "E8 claim fees",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ClaimFees(ctx, testKey, market.ClaimFeesRequest{Loan: "Loan1", PositionMint: "PosMint"})
			},
			path:  "/markets/creditbook/collateral/dex-b/claim_fees",
			body:  `{"loan":"Loan1","positionMint":"PosMint"}`,
			write: true, wallet: true, response: oneTx, want: wantTx,
		},
		{
			name: "E9 withdraw from strategy",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.WithdrawFromStrategy(ctx, testKey, market.WithdrawStrategyRequest{Strategy: "Strat1", WithdrawAll: true})
			},
			path:  "/markets/strategy/withdraw",
			body:  `{"amount":0,"strategy":"Strat1","withdrawAll":true}`,
			write: true, wallet: true, response: oneTx, want: wantTx,
		},
		{
			name: "E10 claim earn withdrawal",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ClaimEarnWithdrawal(ctx, testKey, market.WithdrawClaimRequest{Address: "EarnVault", Wallet: testWallet,
					RequestID: "Req1"})
			},
			path:  "/gateway/earn/vaults/withdraw_claim/tx",
			body:  `{"address":"EarnVault","wallet":"` + testWallet + `","requestId":"Req1","provider":"provider-a"}`,
			write: true, wallet: true,
			response: `{"action":"withdrawClaim","requestId":"Req1","txBase64s":["AQID","BAUG"],"lastValidBlockHeight":123}`,
			want:     &market.EarnTxResponse{Action: market.EarnActionWithdrawClaim, RequestID: "Req1", TxBase64s: []string{"AQID", "BAUG"}},
		},
		{
			name: "E11 vaults",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Vaults(ctx, market.VaultsQuery{Page: new(0), PageSize: new(10), IncludeRewards: true})
			},
			path:     "/markets/lending_vaults/info",
			body:     `{"page":0,"pageSize":10,"includeRewards":true}`,
			response: fixture(t, "vaults_info.json"),
			want:     clearRaw(decoded[market.VaultsPage](t, fixture(t, "vaults_info.json"))),
		},
		{
			name: "E12 loops",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Loops(ctx, market.LoopsQuery{Identifiers: []string{"jitosol-sol"}})
			},
			path: "/markets/loop/info",
			body: `{"identifiers":["jitosol-sol"]}`,
			response: `[{"identifier":"jitosol-sol","principalMint":"` + solMint + `","collateralMint":"J1to",` +
				`"collateralDeposited":"12345.67","wAvgApy":0.12,"maxApy":null,"newField":true}]`,
			want: []market.Loop{{Identifier: "jitosol-sol", PrincipalMint: solMint, CollateralMint: "J1to",
				CollateralDeposited: 12345.67, WAvgApy: 0.12}},
		},
		{
			name: "earn position",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.EarnPosition(ctx, market.EarnPositionRequest{Address: "EarnVault", Wallet: testWallet})
			},
			path: "/gateway/earn/vaults/position",
			body: `{"address":"EarnVault","wallet":"` + testWallet + `","provider":"provider-a"}`,
			response: `{"address":"EarnVault","wallet":"` + testWallet + `","shares":"1000","assets":"1010",` +
				`"openWithdrawalRequests":[{"onChainRequestAddr":"Req1","requestedAmount":"500","createdTime":1700000000}]}`,
			want: &market.EarnPosition{Address: "EarnVault", Wallet: testWallet, Shares: 1000, Assets: 1010,
				OpenWithdrawalRequests: []market.OpenWithdrawalRequest{{OnChainRequestAddr: "Req1", RequestedAmount: 500,
					CreatedTime: 1700000000}}},
		},
		{
			name: "withdrawal queue",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.WithdrawalQueue(ctx, market.WithdrawalQueueRequest{Address: "EarnVault"})
			},
			path: "/gateway/earn/vaults/withdraw_queue",
			body: `{"address":"EarnVault","provider":"provider-a"}`,
			response: `{"address":"EarnVault","requests":[{"requestId":"Req1","wallet":"W","requestedAmount":"500",` +
				`"filledAmount":"500","claimedAmount":"0","cancelled":false,"createdTime":1700000000}]}`,
			want: &market.WithdrawalQueue{Address: "EarnVault", Requests: []market.WithdrawalRequest{{RequestID: "Req1", Wallet: "W",
				RequestedAmount: 500, FilledAmount: 500, CreatedTime: 1700000000}}},
		},
		{
			name: "earn withdraw request",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.RequestEarnWithdrawal(ctx, testKey, market.EarnWithdrawRequest{Address: "EarnVault", Wallet: testWallet,
					Amount: 500})
			},
			path:  "/gateway/earn/vaults/withdraw_request/tx",
			body:  `{"address":"EarnVault","wallet":"` + testWallet + `","amount":500,"provider":"provider-a"}`,
			write: true, wallet: true,
			response: `{"action":"withdrawRequest","requestId":"Req2","txBase64s":["AQID"]}`,
			want:     &market.EarnTxResponse{Action: market.EarnActionWithdrawRequest, RequestID: "Req2", TxBase64s: []string{"AQID"}},
		},
	}
}

func TestEndpoints(t *testing.T) {
	for _, tc := range endpointCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{respond: always(reply{Body: tc.response, Header: map[string]string{"Content-Type": "application/json"}})}
			c := newServer(t, f, nil)
			got, err := tc.call(bg(t), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := clearRaw(got); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoded:\n got %#v\nwant %#v", got, tc.want)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			checkRequest(t, reqs[0], tc)
		})
	}
}

// checkRequest asserts method, path, body and every header of one request.
func checkRequest(t *testing.T, r recorded, tc endpointCase) {
	t.Helper()
	if r.Method != http.MethodPost {
		t.Errorf("method = %s, want POST", r.Method)
	}
	if r.Path != tc.path {
		t.Errorf("path = %s, want %s", r.Path, tc.path)
	}
	if r.Body != tc.body {
		t.Errorf("body:\n got %s\nwant %s", r.Body, tc.body)
	}
	want := map[string]string{
		"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "keeper/1.2.3",
		"X-Api-Key": testAuth, "Idempotent-Key": "", "User-Wallet": "", "Payer": "",
	}
	if tc.write {
		want["Idempotent-Key"] = string(testKey)
	}
	if tc.wallet {
		want["User-Wallet"], want["Payer"] = testWallet, testPayer
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
}
