package segment

import (
	"iter"
	"math/bits"
	"strings"
)

// Token is a word of text as Tokens yields it, with what the segmenter
// knows of it without looking the word up again: its dictionary id and
// whether it is a stopword.
type Token struct {
	// Word is the word, the same as WordSeq yields.
	Word string
	// ID identifies Word among the dictionary's words (its trie node); 0
	// when Word is not a dictionary word. Two tokens of one Segmenter with
	// the same non-zero ID have the same Word.
	ID uint32
	// Stop is IsStop(Word).
	Stop bool
}

// Tokens yields the words of text, the same as WordSeq, as tokens: the
// dictionary id comes from the segmentation's own trie walk, so a caller
// that counts or classifies words (TermCounter.AddToken, WordSet) needs no
// string hashing for dictionary words. Word shares memory with its piece's
// normalised text, as in WordSeq.
func (s *Segmenter) Tokens(text string) iter.Seq[Token] {
	return func(yield func(Token) bool) {
		eachPiece(text, func(piece string) bool {
			b := s.getBuffers()
			defer s.putBuffers(b)
			norm, spans := s.segmentText(piece, b)
			for i := 0; i < len(spans); i += 2 {
				if t, ok := s.token(norm[spans[i]:spans[i+1]], b.ids[i/2]); ok && !yield(t) {
					return false
				}
			}
			return true
		})
	}
}

// token is word with the dictionary id of the word returned (that of the
// synonym head when one replaced tok).
func (s *Segmenter) token(tok string, id uint32) (Token, bool) {
	w, ok := s.word(tok)
	if !ok {
		return Token{}, false
	}
	if s.synonyms != nil && len(w) > 0 && (len(w) != len(tok) || w != tok) {
		id = s.dict.wordNode(w)
	}
	t := Token{Word: w, ID: id}
	t.Stop = s.stopSet.Contains(t)
	return t, true
}

// wordNode returns the trie node of dictionary word w, 0 when w is not a
// dictionary word.
func (d *dictionary) wordNode(w string) uint32 {
	var node uint32
	word := false
	for _, r := range w {
		next, isWord, _, found := d.step(node, r)
		if !found {
			return 0
		}
		node, word = next, isWord
	}
	if !word {
		return 0
	}
	return node
}

// WordSet is a set of words tested by token (Contains): one bit per
// dictionary word and a map for the words the dictionary lacks.
type WordSet struct {
	dict  []uint64 // bit per trie node
	other map[string]struct{}
}

// NewWordSet returns the set of words, compared exactly as given (no
// normalisation), for tokens of s.
func (s *Segmenter) NewWordSet(words ...string) *WordSet {
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return s.wordSetOf(set)
}

func (s *Segmenter) wordSetOf(words map[string]struct{}) *WordSet {
	ws := &WordSet{dict: make([]uint64, s.dict.nodes/64+1), other: map[string]struct{}{}}
	for w := range words {
		if id := s.dict.wordNode(w); id != 0 {
			ws.dict[id/64] |= 1 << (id % 64)
		} else {
			ws.other[w] = struct{}{}
		}
	}
	return ws
}

// Contains reports whether t.Word is in the set. t must come from Tokens
// of the Segmenter that made the set.
func (ws *WordSet) Contains(t Token) bool {
	if t.ID != 0 {
		return int(t.ID/64) < len(ws.dict) && ws.dict[t.ID/64]&(1<<(t.ID%64)) != 0
	}
	_, ok := ws.other[t.Word]
	return ok
}

// Counter returns an empty TermCounter of the tokens of s (AddToken)
// that skips stopwords. Release gives it back for reuse once its Features
// are no longer needed.
func (s *Segmenter) Counter() *TermCounter {
	if c, ok := s.counters.Get().(*TermCounter); ok {
		return c
	}
	return &TermCounter{isStop: s.IsStop, clone: true, pool: &s.counters, byID: make([]uint64, minIDTable)}
}

// minIDTable is the initial size of a counter's id table: room for the 512
// distinct dictionary words of a long article before it grows, in 8 KB.
const minIDTable = 1 << 10

// AddToken counts one token of the Segmenter that made the counter
// (Segmenter.Counter), skipping stopwords: the same count as Add of its
// word, a dictionary word counted by its id. A new term's bytes are
// copied into the counter.
func (c *TermCounter) AddToken(t Token) {
	if t.Stop || t.Word == "" {
		return
	}
	if t.ID == 0 || c.byID == nil {
		c.addWord(t.Word)
		return
	}
	slot := c.idSlot(t.ID)
	if c.byID[slot] == 0 {
		if 2*(len(c.ids)+1) > len(c.byID) {
			c.growIDs()
			slot = c.idSlot(t.ID)
		}
		c.byID[slot] = uint64(t.ID)<<32 | uint64(len(c.feats))
		c.ids = append(c.ids, t.ID)
		c.feats = append(c.feats, Feature{})
		c.ends = append(c.ends, int32(len(c.arena)+len(t.Word)))
		c.arena = append(c.arena, t.Word...)
	}
	c.feats[uint32(c.byID[slot])].Weight++
}

// idSlot returns the slot of id in the id table (open addressing, linear
// probing; an entry is id<<32 | feature index, 0 when empty): the slot
// holding id, or the empty slot where it belongs.
func (c *TermCounter) idSlot(id uint32) int {
	mask := len(c.byID) - 1
	i := int((uint64(id) * hashMul) >> (64 - bits.TrailingZeros(uint(len(c.byID)))))
	for c.byID[i] != 0 && uint32(c.byID[i]>>32) != id {
		i = (i + 1) & mask
	}
	return i
}

// growIDs doubles the id table.
func (c *TermCounter) growIDs() {
	old := c.byID
	c.byID = make([]uint64, 2*len(old))
	for _, e := range old {
		if e != 0 {
			c.byID[c.idSlot(uint32(e>>32))] = e
		}
	}
}

// termsFromArena gives the features counted by id their terms, cut from one
// string of the copied bytes.
func (c *TermCounter) termsFromArena() {
	if len(c.ids) == 0 {
		return
	}
	all := string(c.arena)
	start, k := int32(0), 0
	for i := range c.feats {
		if c.feats[i].Term != "" {
			continue // counted by Add
		}
		end := c.ends[k]
		c.feats[i].Term = all[start:end]
		start = end
		k++
	}
}

// Release returns a counter of Segmenter.Counter for reuse: the counter
// and the features its Features returned must not be used after it.
func (c *TermCounter) Release() {
	if c.pool == nil {
		return
	}
	if len(c.byID) > maxPooledIDTable {
		c.byID = make([]uint64, minIDTable)
	} else {
		clear(c.byID)
	}
	clear(c.index)
	clear(c.feats[:cap(c.feats)])
	c.ids, c.ends, c.arena, c.feats = c.ids[:0], c.ends[:0], c.arena[:0], c.feats[:0]
	if cap(c.arena) <= maxPooledArena {
		c.pool.Put(c)
	}
}

// maxPooledArena and maxPooledIDTable keep the counter of one huge text
// from pinning its term bytes and id table in the pool.
const (
	maxPooledArena   = 1 << 20
	maxPooledIDTable = 1 << 14
)

// internTerm copies a new term found by Add unless the counter keeps the
// caller's memory.
func (c *TermCounter) internTerm(word string) string {
	if c.clone {
		return strings.Clone(word)
	}
	return word
}
