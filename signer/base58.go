package signer

// base58Alphabet is the Bitcoin alphabet Solana uses.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Digits maps an ASCII byte to its base58 digit, or -1.
var base58Digits = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := range len(base58Alphabet) {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// isBase58Text reports whether s is non-empty and uses only base58 digits.
func isBase58Text[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := range len(s) {
		if base58Digits[s[i]] < 0 {
			return false
		}
	}
	return true
}

// decodeBase58 decodes s. It reports false on an empty string or a byte
// outside the alphabet, and never says which byte: s may be a secret. Scratch
// space is cleared before returning.
func decodeBase58[T string | []byte](s T) ([]byte, bool) {
	if !isBase58Text(s) {
		return nil, false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// log(58)/log(256) < 0.733, so this many bytes always suffice.
	size := (len(s)-zeros)*733/1000 + 1
	buf := make([]byte, size)
	defer clear(buf)
	high := size - 1
	for i := zeros; i < len(s); i++ {
		carry := int(base58Digits[s[i]])
		j := size - 1
		for ; j >= 0 && (j > high || carry != 0); j-- {
			carry += 58 * int(buf[j])
			buf[j] = byte(carry)
			carry >>= 8
		}
		high = j
	}
	start := 0
	for start < size && buf[start] == 0 {
		start++
	}
	out := make([]byte, zeros+size-start)
	copy(out[zeros:], buf[start:])
	return out, true
}
