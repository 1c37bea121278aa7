package chain

// Instruction returns the index of the instruction the simulation failed
// at, when the error is an InstructionError ({"InstructionError":[i, …]}).
func (e *SimError) Instruction() (int, bool) {
	m, ok := e.Err.(map[string]any)
	if !ok {
		return 0, false
	}
	pair, ok := m["InstructionError"].([]any)
	if !ok || len(pair) != 2 {
		return 0, false
	}
	i, ok := pair[0].(float64)
	if !ok || i < 0 || i != float64(int(i)) {
		if n, isInt := pair[0].(int); isInt && n >= 0 {
			return n, true
		}
		return 0, false
	}
	return int(i), true
}
