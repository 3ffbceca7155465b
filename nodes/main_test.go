package nodes

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: exec's pipe readers and waiters included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
