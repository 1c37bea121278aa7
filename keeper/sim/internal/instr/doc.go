// Package instr is the instruction data of the simulated market's programs:
// one tag byte and little-endian fields, as package sim's documentation
// lists them, with the encoders the market API builds instructions with
// and the decoders the programs read them with.
package instr
