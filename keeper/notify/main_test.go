package notify

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a dispatcher goroutine outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
