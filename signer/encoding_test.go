package signer

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestDecodeBase58(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty bytes", []byte{}},
		{"leading zeros", []byte{0, 0, 0, 1, 2, 3}},
		{"all zero key", make([]byte, 32)},
		{"all ones", bytes.Repeat([]byte{0xff}, 64)},
		{"mixed", []byte("keeper base58 round trip \x00\x01\xfe")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := solana.Base58(tt.in).String()
			got, ok := decodeBase58(text)
			if len(tt.in) == 0 {
				if ok {
					t.Fatal("empty text decoded")
				}
				return
			}
			if !ok || !bytes.Equal(got, tt.in) {
				t.Fatalf("decode(%q) = %x %v, want %x", text, got, ok, tt.in)
			}
			if gotB, ok := decodeBase58([]byte(text)); !ok || !bytes.Equal(gotB, tt.in) {
				t.Fatal("byte-slice input decodes differently")
			}
		})
	}
	for _, bad := range []string{"0", "O", "I", "l", "abc+", "ab c", ""} {
		if _, ok := decodeBase58(bad); ok {
			t.Fatalf("decoded invalid %q", bad)
		}
	}
}

func TestShortvec(t *testing.T) {
	for _, v := range []int{0, 1, 127, 128, 255, 16383, 16384, 65535} {
		b := appendShortvec(nil, v)
		got, n, err := readShortvec(append(b, 0xaa))
		if err != nil || got != v || n != len(b) {
			t.Fatalf("%d: got %d n %d err %v (encoded %x)", v, got, n, err, b)
		}
	}
	tests := []struct {
		in   []byte
		want error
	}{
		{nil, errShortvecTruncated},
		{[]byte{0x80}, errShortvecTruncated},
		{[]byte{0x80, 0x00}, errShortvecNonCanonical},
		{[]byte{0x81, 0x80, 0x00}, errShortvecNonCanonical},
		{[]byte{0xff, 0xff, 0x04}, errShortvecOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x01}, errShortvecOverflow},
	}
	for _, tt := range tests {
		if _, _, err := readShortvec(tt.in); !errors.Is(err, tt.want) {
			t.Fatalf("%x: err %v, want %v", tt.in, err, tt.want)
		}
	}
}
