package chain

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzPubSubMessage feeds arbitrary messages, small and (repeated past
// smallPubSubMessage) large, through what a PubSub does with each: read it
// within the budget, then decode it as an answer or a notification. The read
// returns the message byte for byte and gives the large-message slot back
// on release; decoding never panics, and a notification's result is JSON
// its subscriber can decode again.
func FuzzPubSubMessage(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"result":7}`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"accountNotification","params":{"subscription":7,"result":{"context":{"slot":5},"value":{"data":["AQI=","base64"]}}}}`), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params"}}`), false)
	f.Add([]byte(`{"params":{"result":`), true)
	f.Fuzz(func(t *testing.T, msg []byte, large bool) {
		if large && len(msg) > 0 {
			msg = bytes.Repeat(msg, smallPubSubMessage/len(msg)+1)
		}
		slot := make(chan struct{}, 1)
		data, release, err := readMessage(bytes.NewReader(msg), slot, make(chan struct{}))
		if err != nil || !bytes.Equal(data, msg) {
			t.Fatalf("read %d of %d bytes, %v", len(data), len(msg), err)
		}
		if held := len(slot) == 1; held != (len(msg) > smallPubSubMessage) {
			t.Fatalf("a %d-byte message holds the slot: %v", len(msg), held)
		}
		release()
		if len(slot) != 0 {
			t.Fatal("release left the slot taken")
		}
		var m message
		if json.Unmarshal(data, &m) != nil || m.ID != nil {
			return
		}
		if r := m.Params.Result; len(r) > 0 && !json.Valid(r) {
			t.Fatalf("a notification's result %.100q is not JSON", r)
		}
	})
}
