package keeper

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when they leave goroutines behind:
// schedulers, notifiers, journals or HTTP servers not stopped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
