package sim

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when they leave goroutines behind (servers not stopped, hanging
// requests not ended).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
