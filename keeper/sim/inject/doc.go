// Package inject is the fault injection the simulated services share: the
// kinds of fault ([Fault]), their per-call probabilities ([Rates]), the
// faults of one method and of one service ([MethodFaults],
// [ServiceFaults]) and the [FaultEngine] that decides, call by call, what
// a service does to a call. Package chainsim's RPC and Jito servers use one
// engine each, and so does the market simulator in package sim.
package inject
