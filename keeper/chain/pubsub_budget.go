package chain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// maxAccountData is the most data a Solana account can hold (the runtime's
// MAX_PERMITTED_DATA_LENGTH, 10 MiB): the largest account an
// accountSubscribe can carry, whatever account a trigger names.
const maxAccountData = 10 << 20

// maxEnvelope bounds what a notification carries besides the account's
// data: the JSON-RPC envelope, subscription id, slot, owner, lamports,
// flags and rent epoch take some 300 bytes.
const maxEnvelope = 4 << 10

// maxPubSubMessage is the largest message a PubSub reads: the notification
// of the largest account, its data in base64 (4 bytes per 3), in its
// envelope. A longer message is no notification keeper asked for: the
// connection is dropped (and its subscribers resubscribe) rather than
// letting a node grow the process without bound.
const maxPubSubMessage = (maxAccountData+2)/3*4 + maxEnvelope

// smallPubSubMessage is how much of a message any number of connections may
// hold at once without waiting: every notification keeper's triggers and
// confirmations ask for (a signature's status, a slot, an oracle, a pool, a
// loan, a position) is far below it.
const smallPubSubMessage = 64 << 10

// ErrMessageTooLarge ends a PubSub whose node sent a message over
// maxPubSubMessage bytes.
var ErrMessageTooLarge = fmt.Errorf("pubsub: a message over %d bytes (the notification of a %d-byte account)", maxPubSubMessage, maxAccountData)

// largeMessage is the one slot a message longer than smallPubSubMessage
// holds, in every PubSub of the process, from its read until its
// subscriber asks for the next notification: so however many connections a
// node floods with large notifications, at most one of them beyond the
// small ones is in memory at a time.
var largeMessage = make(chan struct{}, 1)

// oversized counts the messages over maxPubSubMessage that ended a
// connection, in the whole process.
var oversized atomic.Uint64

// OversizedMessages returns how many messages over the cap (the
// notification of the largest account Solana allows) ended a websocket
// connection since the process started.
func OversizedMessages() uint64 { return oversized.Load() }

// readMessage reads one message from r: the first smallPubSubMessage bytes
// freely, the rest only once it holds slot (largeMessage; waiting for it
// until done closes). release gives the slot back (a no-op for a small
// message); it is never nil.
func readMessage(r io.Reader, slot chan struct{}, done <-chan struct{}) (data []byte, release func(), err error) {
	nop := func() {}
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, r, smallPubSubMessage+1)
	if errors.Is(err, io.EOF) {
		return buf.Bytes(), nop, nil
	}
	if err != nil {
		return nil, nop, err
	}
	if n <= smallPubSubMessage {
		return buf.Bytes(), nop, nil
	}
	select {
	case slot <- struct{}{}:
	case <-done:
		return nil, nop, errors.New("pubsub: closed")
	}
	release = sync.OnceFunc(func() { <-slot })
	if _, err := buf.ReadFrom(r); err != nil {
		release()
		return nil, nop, err
	}
	return buf.Bytes(), release, nil
}
