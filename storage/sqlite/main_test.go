package sqlite_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a lock waiter, a
// database connection opener of an unclosed store) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
