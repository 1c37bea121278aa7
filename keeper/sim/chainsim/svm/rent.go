package svm

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
