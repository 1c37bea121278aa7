package signer

import "errors"

// Errors of the compact-u16 ("shortvec") length encoding.
var (
	errShortvecTruncated    = errors.New("length prefix is truncated")
	errShortvecNonCanonical = errors.New("length prefix is not canonical")
	errShortvecOverflow     = errors.New("length prefix exceeds 65535")
)

// readShortvec decodes a compact-u16 at the start of b and returns the value
// and the number of bytes it used. Like the chain, it refuses aliases (a
// trailing zero byte) and anything longer than three bytes or above 0xffff.
func readShortvec(b []byte) (val, n int, err error) {
	for i := range 3 {
		if i >= len(b) {
			return 0, 0, errShortvecTruncated
		}
		c := b[i]
		val |= int(c&0x7f) << (7 * i)
		if c&0x80 != 0 {
			continue
		}
		if i > 0 && c == 0 {
			return 0, 0, errShortvecNonCanonical
		}
		if val > 0xffff {
			return 0, 0, errShortvecOverflow
		}
		return val, i + 1, nil
	}
	return 0, 0, errShortvecOverflow
}

// appendShortvec appends the compact-u16 encoding of v (0 <= v <= 0xffff).
func appendShortvec(b []byte, v int) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
