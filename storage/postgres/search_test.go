package postgres_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestTitleSearch(t *testing.T) {
	serverURL(t)
	storagetest.TitleSearch(t, func(t *testing.T) storagetest.TitleSearcher {
		u, _ := freshSchema(t)
		return openStore(t, u)
	})
}
