package chain

import (
	"bytes"
	"testing"
	"testing/synctest"
)

// TestOneLargeMessageAtATime: small messages are read while a large one is
// held; a second large one waits until the first is released, and a
// closed connection stops the wait.
func TestOneLargeMessageAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slot := make(chan struct{}, 1)
		done := make(chan struct{})
		large := bytes.Repeat([]byte{'a'}, smallPubSubMessage+1)
		first, release, err := readMessage(bytes.NewReader(large), slot, done)
		if err != nil || len(first) != len(large) {
			t.Fatalf("first large message: %d bytes, %v", len(first), err)
		}
		small, _, err := readMessage(bytes.NewReader(large[:smallPubSubMessage]), slot, done)
		if err != nil || len(small) != smallPubSubMessage {
			t.Fatalf("a small message while the large one is held: %d bytes, %v", len(small), err)
		}
		second := make(chan int, 1)
		go func() {
			data, rel, err := readMessage(bytes.NewReader(large), slot, done)
			if err != nil {
				t.Error(err)
			}
			rel()
			second <- len(data)
		}()
		synctest.Wait()
		select {
		case <-second:
			t.Fatal("a second large message was read while the first was held")
		default:
		}
		release()
		release() // twice is once
		synctest.Wait()
		if n := <-second; n != len(large) {
			t.Fatalf("second large message: %d bytes", n)
		}
		_, _, _ = readMessage(bytes.NewReader(large), slot, done) // holds the slot again
		waiting := make(chan error, 1)
		go func() {
			_, _, err := readMessage(bytes.NewReader(large), slot, done)
			waiting <- err
		}()
		synctest.Wait()
		close(done)
		if err := <-waiting; err == nil {
			t.Fatal("a wait for the slot outlived its connection")
		}
	})
}
