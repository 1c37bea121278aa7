package signer

import (
	"encoding/base64"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to every decoder and the guard: nothing
// may panic, and anything that decodes must keep its exact message bytes.
func FuzzDecode(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.c.Message)
	}
	f.Add("")
	f.Add("gAEAAQ==")
	s := fixtureSigner(f)
	b := Bounds{MaxLamports: 1 << 40}
	f.Fuzz(func(t *testing.T, in string) {
		if tx, err := DecodeAPITransaction(in, nil); err == nil {
			_ = s.Check(tx, KindRepay, b)
		}
		if tx, err := DecodeWire(in); err == nil {
			_ = s.Check(tx, KindTip, b)
		}
		raw, err := base64.StdEncoding.DecodeString(in)
		if err != nil {
			return
		}
		if tx, err := DecodeMessage(raw); err == nil {
			if string(tx.MessageBytes()) != string(raw) {
				t.Fatal("message bytes changed")
			}
			_, _ = s.SignTip(raw, nil, 1)
		}
	})
}
