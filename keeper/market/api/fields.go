package api

import "github.com/keeper-project/keeper/keeper/market"

// Fields overrides the assumed member names of answers the spec does not show. Every member is
// overridable; an empty name takes its default.
type Fields struct {
	// WithdrawalQueue names the members of the withdrawal-queue answer. Defaults:
	// market.DefaultWithdrawalQueueFields.
	WithdrawalQueue market.WithdrawalQueueFields
}

// withDefaults fills empty names from their defaults.
func (f Fields) withDefaults() Fields {
	f.WithdrawalQueue = f.WithdrawalQueue.WithDefaults()
	return f
}

// validate checks defaulted names.
func (f Fields) validate() error {
	return f.WithdrawalQueue.Validate()
}
