package squads

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// ErrMalformed is wrapped by every error about bytes that are not a valid
// account, instruction or message of the program.
var ErrMalformed = errors.New("malformed squads data")

// writer appends Borsh (Anchor) encodings.
type writer struct{ b []byte }

func (w *writer) u8(v uint8)             { w.b = append(w.b, v) }
func (w *writer) u16(v uint16)           { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32)           { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)           { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) i64(v int64)            { w.u64(uint64(v)) }
func (w *writer) key(k solana.PublicKey) { w.b = append(w.b, k[:]...) }
func (w *writer) raw(p []byte)           { w.b = append(w.b, p...) }
func (w *writer) bytesU32(p []byte)      { w.u32(uint32(len(p))); w.raw(p) }
func (w *writer) disc(d [8]byte)         { w.raw(d[:]) }
func (w *writer) boolean(v bool)         { w.u8(map[bool]uint8{false: 0, true: 1}[v]) }
func (w *writer) keysU32(ks []solana.PublicKey) {
	w.u32(uint32(len(ks)))
	for _, k := range ks {
		w.key(k)
	}
}

// optString writes an Option<String>: absent when s is empty.
func (w *writer) optString(s string) {
	if s == "" {
		w.u8(0)
		return
	}
	w.u8(1)
	w.bytesU32([]byte(s))
}

// reader reads Borsh encodings; the first error sticks and later reads
// return zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes wanted at offset %d of %d", ErrMalformed, n, r.off, len(r.b))
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if p := r.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) i64() int64 { return int64(r.u64()) }

func (r *reader) key() solana.PublicKey {
	var k solana.PublicKey
	copy(k[:], r.take(32))
	return k
}

func (r *reader) clone(n int) []byte { return append([]byte(nil), r.take(n)...) }

func (r *reader) bytesU32() []byte { return r.clone(int(r.u32())) }

func (r *reader) keys(n int) []solana.PublicKey {
	if r.err == nil && n*32 > len(r.b)-r.off {
		r.take(n * 32)
		return nil
	}
	out := make([]solana.PublicKey, n)
	for i := range out {
		out[i] = r.key()
	}
	return out
}

func (r *reader) optString() string {
	switch r.u8() {
	case 0:
		return ""
	case 1:
		return string(r.bytesU32())
	}
	r.fail("an Option tag is neither 0 nor 1")
	return ""
}

// disc reads and checks an 8-byte discriminator.
func (r *reader) disc(want [8]byte, what string) {
	if p := r.take(8); p != nil && [8]byte(p) != want {
		r.fail(what + " discriminator does not match")
	}
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrMalformed, msg)
	}
}
