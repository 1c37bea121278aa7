package squadsim

import (
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/squads"
)

// vaultTransactionExecute is vault_transaction_execute: accounts multisig,
// proposal (w), transaction, member (s), then the lookup tables of the
// message and every account it names (ExecutableTransactionMessage). The
// member needs Execute; the proposal must be approved and its time lock
// passed. A stale proposal that was approved still executes, as in the
// program (staleness only stops votes and new proposals). Each stored
// instruction is invoked with the vault PDA signing; the proposal may not
// be passed writable to them. The proposal becomes executed.
func vaultTransactionExecute(x *svm.Exec, a []solana.AccountMeta) error {
	if len(a) < 4 {
		return fail(x, anchorNotEnoughKeys, "vault_transaction_execute takes at least 4 accounts")
	}
	ms, err := loadMultisig(x, a[0], false)
	if err != nil {
		return err
	}
	vt, err := loadTransaction(x, a[0].PublicKey, a[2])
	if err != nil {
		return err
	}
	p, err := loadProposal(x, a[0].PublicKey, a[1], true)
	if err != nil {
		return err
	}
	if p.TransactionIndex != vt.Index {
		return fail(x, anchorConstraintSeeds, "proposal %d is not transaction %d's", p.TransactionIndex, vt.Index)
	}
	if err := signer(x, a[3], "member"); err != nil {
		return err
	}
	if err := memberWith(x, ms, a[3].PublicKey, squads.Execute); err != nil {
		return err
	}
	now := x.Block().Time.Unix()
	switch {
	case p.Status != squads.StatusApproved:
		return fail(x, errInvalidProposalStatus, "proposal is %s, not approved", p.Status)
	case now-p.Timestamp < int64(ms.TimeLock):
		return fail(x, errTimeLockNotReleased, "time lock of %ds not released (approved %ds ago)", ms.TimeLock, now-p.Timestamp)
	}
	seeds := append(squads.VaultSeeds(a[0].PublicKey, vt.VaultIndex), []byte{vt.VaultBump})
	vault, err := solana.CreateProgramAddress(seeds, x.ProgramID())
	if err != nil {
		return svm.ErrInvalidSeeds
	}
	ixs, err := executable(x, vt.Message, a[4:], vault)
	if err != nil {
		return err
	}
	for _, ix := range ixs {
		for _, m := range ix.Accounts {
			if m.IsWritable && m.PublicKey == a[1].PublicKey {
				return fail(x, errProtectedAccount, "the proposal may not be written by the transaction")
			}
		}
		if err := x.Invoke(ix, seeds); err != nil {
			return err
		}
	}
	p.Status, p.Timestamp = squads.StatusExecuted, now
	return x.SetData(a[1].PublicKey, p.Encode(len(ms.Members)))
}

// loadTransaction reads the vault transaction at m, checking its seeds.
func loadTransaction(x *svm.Exec, multisig solana.PublicKey, m solana.AccountMeta) (*squads.VaultTransaction, error) {
	acct, err := x.Account(m.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := owned(x, acct, "transaction"); err != nil {
		return nil, err
	}
	vt, err := squads.DecodeVaultTransaction(acct.Data)
	if err != nil {
		return nil, fail(x, anchorDiscriminatorWrong, "transaction: %v", err)
	}
	if k, _ := squads.TransactionPDA(multisig, vt.Index); k != m.PublicKey || vt.Multisig != multisig {
		return nil, fail(x, anchorConstraintSeeds, "transaction is not the PDA of its multisig and index")
	}
	return vt, nil
}

// executable checks the remaining accounts against msg as
// ExecutableTransactionMessage::new_validated does and returns the
// message's instructions with their accounts: the lookup tables first, as
// the message lists them; then exactly the message's accounts, static
// ones with the message's writable flags, and signed unless they are the
// vault; then the looked-up ones from the tables.
func executable(x *svm.Exec, msg *squads.Message, rest []solana.AccountMeta, vault solana.PublicKey) ([]svm.Instruction, error) {
	nl := len(msg.Lookups)
	if len(rest) < nl {
		return nil, fail(x, errInvalidNumberOfAccounts, "%d lookup tables wanted", nl)
	}
	tables, accts := rest[:nl], rest[nl:]
	if len(accts) != msg.NumAllKeys() {
		return nil, fail(x, errInvalidNumberOfAccounts, "%d message accounts passed, %d wanted", len(accts), msg.NumAllKeys())
	}
	for i, k := range msg.AccountKeys {
		m := accts[i]
		switch {
		case m.PublicKey != k:
			return nil, fail(x, errInvalidAccount, "account %d is %s, the message names %s", i, m.PublicKey, k)
		case msg.IsSigner(i) && k != vault && !m.IsSigner:
			return nil, fail(x, errInvalidAccount, "%s signs the message but not this transaction", k)
		case msg.IsStaticWritable(i) && !m.IsWritable:
			return nil, fail(x, errInvalidAccount, "%s is writable in the message", k)
		}
	}
	loaded, err := loadedKeys(x, msg, tables, accts[len(msg.AccountKeys):])
	if err != nil {
		return nil, err
	}
	all := append(append([]solana.PublicKey(nil), msg.AccountKeys...), loaded...)
	nw := 0
	for _, l := range msg.Lookups {
		nw += len(l.Writable)
	}
	writable := func(i int) bool {
		return msg.IsStaticWritable(i) || i >= len(msg.AccountKeys) && i < len(msg.AccountKeys)+nw
	}
	out := make([]svm.Instruction, 0, len(msg.Instructions))
	for _, ci := range msg.Instructions {
		ix := svm.Instruction{ProgramID: all[ci.ProgramIDIndex], Data: ci.Data}
		for _, ai := range ci.AccountIndexes {
			i := int(ai)
			ix.Accounts = append(ix.Accounts, solana.AccountMeta{PublicKey: all[i], IsSigner: msg.IsSigner(i), IsWritable: writable(i)})
		}
		out = append(out, ix)
	}
	return out, nil
}

// loadedKeys checks the looked-up accounts passed against the lookup
// tables: each table owned by the lookup-table program and named by the
// message at its place, each account the table's entry, writable ones
// passed writable. It returns them writable first, then read-only.
func loadedKeys(x *svm.Exec, msg *squads.Message, tables, passed []solana.AccountMeta) ([]solana.PublicKey, error) {
	var w, r []solana.PublicKey
	cursor := 0
	for i, l := range msg.Lookups {
		if tables[i].PublicKey != l.Table {
			return nil, fail(x, errInvalidAccount, "lookup table %d is %s, the message names %s", i, tables[i].PublicKey, l.Table)
		}
		acct, err := x.Account(l.Table)
		if err != nil {
			return nil, err
		}
		if acct.Owner != solana.AddressLookupTableProgramID {
			return nil, fail(x, errInvalidAccount, "%s is not a lookup table", l.Table)
		}
		addrs, terr := svm.LookupTableAddresses(acct)
		if terr != nil {
			return nil, fail(x, errInvalidAccount, "lookup table %s: %v", l.Table, terr)
		}
		for pass, idxs := range [][]uint8{l.Writable, l.Readonly} {
			for _, ti := range idxs {
				m := passed[cursor]
				cursor++
				if int(ti) >= len(addrs) || addrs[ti] != m.PublicKey || pass == 0 && !m.IsWritable {
					return nil, fail(x, errInvalidAccount, "looked-up account %s does not match table %s entry %d", m.PublicKey, l.Table, ti)
				}
				if pass == 0 {
					w = append(w, m.PublicKey)
				} else {
					r = append(r, m.PublicKey)
				}
			}
		}
	}
	return append(w, r...), nil
}
