package signer

import (
	"encoding/base64"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// DecodeWire decodes one base64 entry of an earn claim's txBase64s, which may
// be a full wire transaction or a bare message; [Tx.Form] says which.
//
// Detection: the bytes are a wire transaction when they start with a
// canonical shortvec count n >= 1, followed by n 64-byte signatures and a
// message that parses completely and whose header requires exactly n
// signatures. They are a bare message when they parse completely as one.
// Input that reads both ways is refused as ambiguous. Non-zero signatures of
// a wire transaction must verify over the message ([RuleBadSignature]); zero
// ones are unsigned slots.
func DecodeWire(b64 string) (*Tx, error) {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("signer: decode wire: %w: not base64: %w", ErrMalformed, err)
	}
	wire, wireErr := parseWire(b)
	m, msgErr := parseMessage(b)
	switch {
	case wireErr == nil && msgErr == nil:
		return nil, fmt.Errorf("signer: decode wire: %w: bytes read both as a wire transaction and as a bare message", ErrMalformed)
	case msgErr == nil:
		return newTx(b, m, EncodingBase64, FormMessage), nil
	case wireErr != nil:
		return nil, fmt.Errorf("signer: decode wire: neither a wire transaction (%w) nor a bare message (%w)", wireErr, msgErr)
	}
	tx := newTx(wire.raw, wire.msg, EncodingBase64, FormWire)
	for slot, sig := range wire.sigs {
		if err := tx.sigs.set(slot, sig, wire.msg.keys[slot], wire.raw); err != nil {
			return nil, decodeErr("decode wire", err)
		}
	}
	return tx, nil
}

// wireParts is a wire transaction split into its parts.
type wireParts struct {
	sigs []solana.Signature
	raw  []byte
	msg  *message
}

// parseWire splits b into signatures and message, checking their counts agree.
func parseWire(b []byte) (*wireParts, error) {
	n, k, err := readShortvec(b)
	if err != nil {
		return nil, malformed(0, "signature count", err)
	}
	if n == 0 {
		return nil, malformed(0, "signature count", fmt.Errorf("no signatures"))
	}
	if 64*n > len(b)-k {
		return nil, malformed(k, "signatures", errTruncated)
	}
	raw := b[k+64*n:]
	m, err := parseMessage(raw)
	if err != nil {
		return nil, err
	}
	if int(m.header.numRequiredSignatures) != n {
		return nil, fmt.Errorf("%w: %d signatures but the message requires %d", ErrMalformed, n, m.header.numRequiredSignatures)
	}
	p := &wireParts{sigs: make([]solana.Signature, n), raw: raw, msg: m}
	for i := range p.sigs {
		copy(p.sigs[i][:], b[k+64*i:])
	}
	return p, nil
}

// encodeWire returns shortvec(len(sigs)) || sigs || msg.
func encodeWire(sigs []solana.Signature, msg []byte) []byte {
	out := make([]byte, 0, 3+64*len(sigs)+len(msg))
	out = appendShortvec(out, len(sigs))
	for _, s := range sigs {
		out = append(out, s[:]...)
	}
	return append(out, msg...)
}
