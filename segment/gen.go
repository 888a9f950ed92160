package segment

// zhdict.bin and stopwords.txt are derived from the dictionary and stopword
// list compiled into github.com/go-ego/gse (the version pinned in go.mod).
//go:generate go run ./internal/gendict -dict zhdict.bin -stop stopwords.txt
