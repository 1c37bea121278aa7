package instr

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// errShortData is returned by a dataReader that runs out of bytes.
var errShortData = errors.New("instruction data too short")

// dataWriter appends little-endian fields to instruction data.
type dataWriter struct{ b []byte }

func (w *dataWriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *dataWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *dataWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *dataWriter) i32(v int32)  { w.u32(uint32(v)) }
func (w *dataWriter) i64(v int64)  { w.u64(uint64(v)) }
func (w *dataWriter) key(k solana.PublicKey) {
	w.b = append(w.b, k[:]...)
}

// str writes a string of at most 255 bytes with a u8 length prefix.
func (w *dataWriter) str(s string) {
	w.u8(uint8(len(s)))
	w.b = append(w.b, s[:min(len(s), 255)]...)
}

// encodeOp returns the data of an instruction: its tag, then op's fields in
// order, little-endian, a bool as one byte: encoding/binary's layout of a
// struct of fixed-size fields, which every op struct is.
func encodeOp(tag uint8, op any) []byte {
	b, err := binary.Append([]byte{tag}, binary.LittleEndian, op)
	if err != nil {
		panic(fmt.Sprintf("sim: instruction %T is not of fixed size: %v", op, err))
	}
	return b
}

// ReadOp reads an op struct laid out as encodeOp writes it.
func ReadOp[T any](r *DataReader) T {
	var v T
	if b := r.Take(binary.Size(&v)); b != nil {
		if _, err := binary.Decode(b, binary.LittleEndian, &v); err != nil {
			r.err = err
		}
	}
	return v
}

// DataReader reads little-endian fields from instruction data. The first failure sticks in err.
type DataReader struct {
	B   []byte
	err error
}

// Take returns the next n bytes, or nil once the data is exhausted.
func (r *DataReader) Take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.B) < n {
		r.err = errShortData
		return nil
	}
	out := r.B[:n]
	r.B = r.B[n:]
	return out
}

func (r *DataReader) U8() uint8 {
	if b := r.Take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *DataReader) u32() uint32 {
	if b := r.Take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *DataReader) u64() uint64 {
	if b := r.Take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *DataReader) I32() int32 { return int32(r.u32()) }
func (r *DataReader) i64() int64 { return int64(r.u64()) }

func (r *DataReader) key() solana.PublicKey {
	if b := r.Take(32); b != nil {
		return solana.PublicKeyFromBytes(b)
	}
	return solana.PublicKey{}
}

func (r *DataReader) str() string {
	n := int(r.U8())
	return string(r.Take(n))
}

// Done fails when bytes are left over or a read failed.
func (r *DataReader) Done() error {
	if r.err != nil {
		return r.err
	}
	if len(r.B) != 0 {
		return fmt.Errorf("%d trailing bytes of instruction data", len(r.B))
	}
	return nil
}
