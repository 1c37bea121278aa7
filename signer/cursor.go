package signer

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// errTruncated reports input that ends inside a field.
var errTruncated = errors.New("input ends too early")

// cursor reads a message front to back; errors name the byte offset and field.
type cursor struct {
	b   []byte
	off int
	// in names the instruction or lookup being read (for errors), or is
	// empty; item is its index.
	in   string
	item int
}

// fail builds the error for field at the current offset. Labels are only
// formatted here, so reading allocates nothing for them.
func (c *cursor) fail(field string, err error) error {
	if c.in != "" {
		field = fmt.Sprintf("%s %d %s", c.in, c.item, field)
	}
	return malformed(c.off, field, err)
}

func (c *cursor) u8(field string) (uint8, error) {
	if c.off >= len(c.b) {
		return 0, c.fail(field, errTruncated)
	}
	v := c.b[c.off]
	c.off++
	return v, nil
}

func (c *cursor) length(field string) (int, error) {
	v, n, err := readShortvec(c.b[c.off:])
	if err != nil {
		return 0, c.fail(field, err)
	}
	c.off += n
	return v, nil
}

func (c *cursor) take(n int, field string) ([]byte, error) {
	if n > len(c.b)-c.off {
		return nil, c.fail(field, errTruncated)
	}
	v := c.b[c.off : c.off+n : c.off+n]
	c.off += n
	return v, nil
}

// message reads a whole message: an optional version prefix, the header, the
// static keys, the blockhash, the instructions and, for v0, the lookups.
func (c *cursor) message() (*message, error) {
	m := &message{}
	if len(c.b) > 0 && c.b[0]&0x80 != 0 {
		if v := c.b[0] &^ 0x80; v != 0 {
			return nil, malformed(0, "version", fmt.Errorf("unsupported message version %d", v))
		}
		m.versioned = true
		c.off++
	}
	err := c.header(m)
	if err == nil {
		err = c.keys(m)
	}
	if err == nil {
		var h []byte
		h, err = c.take(32, "recent blockhash")
		copy(m.blockhash[:], h)
	}
	if err == nil {
		err = c.instructions(m)
	}
	if err == nil && m.versioned {
		err = c.lookups(m)
	}
	return m, err
}

func (c *cursor) header(m *message) error {
	h, err := c.take(3, "header")
	if err != nil {
		return err
	}
	m.header = header{h[0], h[1], h[2]}
	return nil
}

func (c *cursor) keys(m *message) error {
	n, err := c.length("account key count")
	if err != nil {
		return err
	}
	raw, err := c.take(32*n, "account keys")
	if err != nil {
		return err
	}
	m.keys = make([]solana.PublicKey, n)
	for i := range m.keys {
		copy(m.keys[i][:], raw[32*i:])
	}
	return nil
}

func (c *cursor) instructions(m *message) (err error) {
	m.ixs, err = list(c, "instruction count", "instruction", c.instruction)
	return err
}

func (c *cursor) instruction(ix *instruction) error {
	var err error
	if ix.program, err = c.u8("program index"); err != nil {
		return err
	}
	if ix.accounts, err = c.indexes("accounts"); err != nil {
		return err
	}
	n, err := c.length("data length")
	if err != nil {
		return err
	}
	ix.data, err = c.take(n, "data")
	return err
}

func (c *cursor) indexes(field string) ([]uint8, error) {
	n, err := c.length(field)
	if err != nil {
		return nil, err
	}
	return c.take(n, field)
}

func (c *cursor) lookups(m *message) (err error) {
	m.lookups, err = list(c, "address table lookup count", "address table lookup", c.lookup)
	return err
}

func (c *cursor) lookup(l *lookup) error {
	key, err := c.take(32, "table")
	if err != nil {
		return err
	}
	copy(l.table[:], key)
	if l.writable, err = c.indexes("writable indexes"); err != nil {
		return err
	}
	l.readonly, err = c.indexes("readonly indexes")
	return err
}

// list reads a counted list, each item with read; errors name the item as the in'th of the list. Every
// item takes at least one byte, so a count beyond the bytes left fails before anything is allocated.
// On a failed item the list read so far is returned with the error.
func list[T any](c *cursor, count, in string, read func(*T) error) ([]T, error) {
	n, err := c.length(count)
	if err != nil {
		return nil, err
	}
	if n > len(c.b)-c.off {
		return nil, c.fail(count, errTruncated)
	}
	out := make([]T, n)
	c.in = in
	defer func() { c.in = "" }()
	for i := range out {
		c.item = i
		if err := read(&out[i]); err != nil {
			return out, err
		}
	}
	return out, nil
}
