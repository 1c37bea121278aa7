package apiwire

// AccountMeta is one account of an Instruction.
type AccountMeta struct {
	Pubkey     string `json:"pubkey"`
	IsSigner   bool   `json:"isSigner"`
	IsWritable bool   `json:"isWritable"`
}

// BuildLoanRequest is the body of E2 (POST markets/creditbook/build): an ordered sequence of steps
// that build or mutate a loan.
type BuildLoanRequest struct {
	Loan  string `json:"loan"`
	Steps []Step `json:"steps"`
}

// BuildLoanResponse is the E2 response: the loan address and the transactions to sign and send in
// array order.
type BuildLoanResponse struct {
	Loan         string        `json:"loan"`
	Transactions []Transaction `json:"transactions"`
}

// CollateralWithdrawal withdraws Amount (collateral smallest units) of a collateral mint.
type CollateralWithdrawal struct {
	Amount          Amount `json:"amount"`
	CollateralMint  string `json:"collateralMint"`
	CloseIfEligible bool   `json:"closeIfEligible"`
}

// Instruction is a caller-supplied instruction for cpiIxs and setupIxs. Data is the instruction data
// as the service expects it (encoding not shown by the spec).
type Instruction struct {
	ProgramID string        `json:"programId"`
	Data      string        `json:"data"`
	Accounts  []AccountMeta `json:"accounts"`
}

// RepayParam repays Amount (principal smallest units) of ledger LedgerIndex, or all of it.
type RepayParam struct {
	Amount      Amount `json:"amount"`
	LedgerIndex int    `json:"ledgerIndex"`
	RepayAll    bool   `json:"repayAll"`
}

// StakeInstructions is a step's stakeInstructions member.
type StakeInstructions struct {
	Amount       Amount `json:"amount"`
	Vault        string `json:"vault"`
	StakeAccount string `json:"stakeAccount"`
}

// Step is one high-level build step. Which params belong to which step type is not shown by the spec;
// a repay step uses Loan, RepayParams and optionally CloseIfPossible and CollateralWithdrawalParams.
type Step struct {
	Type   StepType   `json:"type"`
	Params StepParams `json:"params"`
}

const StepFlashBorrow StepType = "flashBorrow"

// StepParams are a step's params; nil and empty members are omitted.
type StepParams struct {
	Loan                       string                 `json:"loan,omitempty"`
	RepayParams                []RepayParam           `json:"repayParams,omitempty"`
	CloseIfPossible            *bool                  `json:"closeIfPossible,omitempty"`
	CollateralWithdrawalParams []CollateralWithdrawal `json:"collateralWithdrawalParams,omitempty"`
	CpiIxs                     []Instruction          `json:"cpiIxs,omitempty"`
	SetupIxs                   []Instruction          `json:"setupIxs,omitempty"`
	CpiLuts                    []string               `json:"cpiLuts,omitempty"`
	SetupLuts                  []string               `json:"setupLuts,omitempty"`
	CpiSigners                 []string               `json:"cpiSigners,omitempty"`
	SetupSigners               []string               `json:"setupSigners,omitempty"`
	StakeInstructions          *StakeInstructions     `json:"stakeInstructions,omitempty"`
	UnifySetup                 *bool                  `json:"unifySetup,omitempty"`
	WeightMatrixUpdates        []WeightMatrixUpdate   `json:"weightMatrixUpdates,omitempty"`
}

const StepRepay StepType = "repay"

const StepSwapCollateral StepType = "swapCollateral"

// StepType is a build step's type.
type StepType string

// WeightMatrixUpdate replaces the weight row of collateral CollateralIndex (centi-basis points).
type WeightMatrixUpdate struct {
	CollateralIndex    int    `json:"collateralIndex"`
	WeightMatrixUpdate []CBPS `json:"weightMatrixUpdate"`
}
