package ids

import "github.com/gagliardetto/solana-go"

// SwapProgramID is the simulated swap program behind the simulator's Jupiter API (a constant-product
// AMM), SimSwap111111111111111111111111111111111111. TestSwapProgramID checks the bytes.
var SwapProgramID = solana.PublicKey{0x06, 0x96, 0xbe, 0xdd, 0x9d, 0xea, 0xcb, 0x6e, 0xb2, 0xc9, 0x4b, 0x11, 0xdc, 0x34, 0x5e, 0x6b,
	0x29, 0xef, 0x7b, 0x69, 0xb6, 0x9b, 0x6e, 0x27, 0x43, 0x75, 0x89, 0x90}

// KindAMM names an AMM pool of the swap program.
const KindAMM = "amm"

// AMMPool returns the address of the AMM pool named name: a PDA of the swap program, so that the
// program may move the tokens of the pool's associated token accounts.
func AMMPool(name string) solana.PublicKey {
	k, _, err := PDA(SwapProgramID, KindAMM, name)
	if err != nil {
		panic("ids: AMM pool " + name + ": " + err.Error())
	}
	return k
}
