package market

// base58Alphabet is the Bitcoin/Solana base58 alphabet.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// IsPublicKey reports whether s is the base58 text of exactly 32 bytes, a Solana public key.
func IsPublicKey(s string) bool {
	n, ok := base58Len(s)
	return ok && n == 32
}

// base58Len decodes s and returns the decoded length in bytes, or false if s is not base58.
func base58Len(s string) (int, bool) {
	if s == "" || len(s) > 64 {
		return 0, false
	}
	var out []byte // big-endian magnitude
	zeros := 0
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		digit := -1
		for j := 0; j < len(base58Alphabet); j++ {
			if base58Alphabet[j] == s[i] {
				digit = j
				break
			}
		}
		if digit < 0 {
			return 0, false
		}
		carry := digit
		for k := len(out) - 1; k >= 0; k-- {
			carry += int(out[k]) * 58
			out[k] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			out = append([]byte{byte(carry)}, out...)
			carry >>= 8
		}
	}
	return zeros + len(out), true
}
