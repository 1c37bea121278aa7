package market

import "fmt"

// IdempotencyKey is sent as the Idempotent-Key header of a write. The service replays the original
// response for a retried write with the same key, and answers 409 when a key is reused with a
// different body. Keeper uses its action ID plus the attempt number.
type IdempotencyKey string

// maxKeyLen bounds an idempotency key.
const maxKeyLen = 255

// Validate checks that the key is 1–255 visible ASCII characters.
func (k IdempotencyKey) Validate() error {
	if k == "" || len(k) > maxKeyLen {
		return fmt.Errorf("%w: idempotency key must be 1 to %d characters", ErrInvalidRequest, maxKeyLen)
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= 0x20 || k[i] >= 0x7f {
			return fmt.Errorf("%w: idempotency key must be visible ASCII", ErrInvalidRequest)
		}
	}
	return nil
}
