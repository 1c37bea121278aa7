package svm

import (
	"encoding/binary"
	"time"

	"github.com/gagliardetto/solana-go"
)

// ClockSysvarID is the Clock sysvar, which validators serve as an account
// like any other: 40 bytes owned by the Sysvar program, holding the slot,
// the epoch and its start time, the leader schedule epoch and the unix
// timestamp on-chain programs compare times with.
var ClockSysvarID = solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111")

// sysvarOwnerID owns every sysvar account.
var sysvarOwnerID = solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111")

// slotsPerEpoch is mainnet's epoch length.
const slotsPerEpoch = 432_000

// clockRent is the rent-exempt minimum of the 40-byte Clock account.
const clockRent = 1_169_280

// ClockAccount is the Clock sysvar at pos on a chain whose slots last
// slotDuration, laid out as the runtime writes it: slot,
// epoch_start_timestamp, epoch, leader_schedule_epoch and unix_timestamp,
// each 8 bytes little-endian.
func ClockAccount(pos BlockPos, slotDuration time.Duration) *Account {
	epoch := pos.Slot / slotsPerEpoch
	epochStart := pos.Time.Add(-time.Duration(pos.Slot%slotsPerEpoch) * slotDuration)
	data := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint64(data[0:], pos.Slot)
	le.PutUint64(data[8:], uint64(epochStart.Unix()))
	le.PutUint64(data[16:], epoch)
	le.PutUint64(data[24:], epoch+1)
	le.PutUint64(data[32:], uint64(pos.Time.Unix()))
	return &Account{Lamports: clockRent, Owner: sysvarOwnerID, Data: data}
}
