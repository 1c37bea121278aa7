package programs

import (
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// Earn claim accounts: wallet (signer, writable), co-signer, request (writable), earn vault, the
// vault's and the wallet's token accounts of the vault's mint (writable), the mint, the Token program.
const earnClaimAccounts = 8

// ExecuteEarn runs one instruction of the earn program: withdraw-claim pays a fully filled request's
// amount to its wallet once and closes the request account (its rent goes to the wallet).
func ExecuteEarn(x *svm.Exec, in svm.Instruction) error {
	if len(in.Data) != 1 || in.Data[0] != instr.EarnOpClaim {
		return svm.ErrInvalidInstructionData
	}
	if len(in.Accounts) < earnClaimAccounts {
		return svm.ErrNotEnoughAccountKeys
	}
	wallet, cosigner, reqKey, vault := in.Accounts[0], in.Accounts[1], in.Accounts[2].PublicKey, in.Accounts[3].PublicKey
	if !wallet.IsSigner {
		return svm.ErrMissingRequiredSignature
	}
	if cosigner.PublicKey != ids.CoSigner() || !cosigner.IsSigner {
		return programError(errCodeUnauthorized, "the market co-signer must sign earn claims")
	}
	a, err := x.Account(reqKey)
	if err != nil {
		return err
	}
	req, err := state.DecodeRequest(a.Data)
	if err != nil || a.Owner != ids.EarnProgramID {
		return programError(errCodeRequestNotFound, "request account not found: %s", reqKey)
	}
	switch {
	case req.Wallet != wallet.PublicKey || req.Vault != vault:
		return programError(errCodeWrongAccount, "request %s belongs to another wallet or vault", reqKey)
	case req.Filled < req.Requested:
		return programError(errCodeRequestNotFilled, "request %s is filled %d of %d", reqKey, req.Filled, req.Requested)
	}
	if err := x.Tokens.Transfer(vault, wallet.PublicKey, req.Mint, req.Filled); err != nil {
		return err
	}
	if err := x.TransferLamports(reqKey, wallet.PublicKey, a.Lamports); err != nil {
		return err
	}
	x.Logf("withdraw_claim: paid %d", req.Filled)
	return x.SetData(reqKey, nil)
}
