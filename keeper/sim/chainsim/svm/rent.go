package svm

import "github.com/gagliardetto/solana-go"

// Rent parameters of mainnet-beta, which every cluster runs with: an
// account is rent-exempt when it holds two years of rent, at 3,480
// lamports per byte-year, for its data and the 128 bytes of metadata the
// runtime stores with every account (solana-rent: DEFAULT_LAMPORTS_PER_BYTE_YEAR,
// DEFAULT_EXEMPTION_THRESHOLD, ACCOUNT_STORAGE_OVERHEAD).
const (
	rentLamportsPerByteYear = 3_480
	rentExemptionYears      = 2
	accountStorageOverhead  = 128
)

// RentExemptMinimum returns the lamports an account of dataLen bytes must
// hold to be rent-exempt: 890,880 for no data, 2,039,280 for an SPL token
// account.
func RentExemptMinimum(dataLen int) uint64 {
	return uint64(accountStorageOverhead+dataLen) * rentLamportsPerByteYear * rentExemptionYears
}

// incinerator is the address whose balance is burnt; the rent rule spares
// it.
var incinerator = solana.MustPublicKeyFromBase58("1nc1nerator11111111111111111111111111111111")

// rentState is an account's state under the rent rule: empty (no
// lamports), rent-exempt, or rent-paying with its lamports and data size.
type rentState struct {
	paying   bool
	lamports uint64
	size     int
}

// rentStateOf returns the rent state of st's account at key.
func rentStateOf(st Store, key solana.PublicKey) rentState {
	a, ok := st.Get(key)
	if !ok || a.Lamports == 0 || a.Lamports >= RentExemptMinimum(len(a.Data)) {
		return rentState{}
	}
	return rentState{paying: true, lamports: a.Lamports, size: len(a.Data)}
}

// rentAllows reports whether the runtime lets an account go from pre to
// post: into any state but rent-paying; and a rent-paying account may stay
// so only with its data size unchanged and no lamports added (Agave svm
// rent_calculator.rs transition_allowed).
func rentAllows(pre, post rentState) bool {
	if !post.paying {
		return true
	}
	return pre.paying && post.size == pre.size && post.lamports <= pre.lamports
}

// CheckRent applies the rent rule to every writable account of t between
// pre and post and returns InsufficientFundsForRent of the first account
// left rent-paying against the rule, nil when none is.
func CheckRent(pre, post Store, t *Txn) *TxError {
	for i, k := range t.Keys {
		if !t.Writable[i] || k == incinerator {
			continue
		}
		if !rentAllows(rentStateOf(pre, k), rentStateOf(post, k)) {
			return InsufficientFundsForRent(i)
		}
	}
	return nil
}

// CheckFeePayerRent applies the rent rule to the fee payer's charge of fee,
// as Agave's account loader does before execution (validate_fee_payer).
func CheckFeePayerRent(st Store, t *Txn, fee uint64) *TxError {
	payer, ok := st.Get(t.FeePayer())
	if !ok || payer.Lamports < fee {
		return nil // the fee checks answer first
	}
	after := payer.Clone()
	after.Lamports -= fee
	if !rentAllows(rentStateOf(st, t.FeePayer()), rentStateOf(AccountMap{t.FeePayer(): &after}, t.FeePayer())) {
		return InsufficientFundsForRent(0)
	}
	return nil
}
